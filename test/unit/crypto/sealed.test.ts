import { describe, expect, it } from 'vitest';
import { seal, unseal } from '../../../src/crypto/sealed.js';

const SECRET = 'k'.repeat(32);

describe('sealed values (AES-256-GCM)', () => {
  it('opens what it sealed, any text', () => {
    for (const text of ['', '1*12345*2', 'ñandú ✓ 💡', 'x'.repeat(5_000)]) {
      expect(unseal(SECRET, 'ussd-text', seal(SECRET, 'ussd-text', text))).toBe(text);
    }
  });

  it('never reuses a nonce, across refills of the nonce pool', () => {
    // 1,000 seals cross the 341-nonce pool twice.
    const nonces = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const raw = Buffer.from(seal(SECRET, 'ussd-text', '1*2'), 'base64url');
      nonces.add(raw.subarray(0, 12).toString('hex'));
    }
    expect(nonces.size).toBe(1_000);
  });

  it('is not deterministic: the same text seals differently', () => {
    expect(seal(SECRET, 'ussd-text', '12345')).not.toBe(seal(SECRET, 'ussd-text', '12345'));
  });

  it('refuses another secret, another purpose, and any changed byte', () => {
    const sealed = seal(SECRET, 'ussd-text', '1*12345');
    expect(unseal('j'.repeat(32), 'ussd-text', sealed)).toBeUndefined();
    expect(unseal(SECRET, 'delegation', sealed)).toBeUndefined();
    const raw = Buffer.from(sealed, 'base64url');
    for (const at of [0, 12, 28, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[at] = tampered[at]! ^ 1;
      expect(unseal(SECRET, 'ussd-text', tampered.toString('base64url'))).toBeUndefined();
    }
    expect(unseal(SECRET, 'ussd-text', 'not sealed')).toBeUndefined();
    // A tag cut short is refused, though GCM would verify its first bytes.
    const empty = Buffer.from(seal(SECRET, 'ussd-text', ''), 'base64url');
    expect(unseal(SECRET, 'ussd-text', empty.toString('base64url'))).toBe('');
    expect(unseal(SECRET, 'ussd-text', empty.subarray(0, 16).toString('base64url'))).toBeUndefined();
  });
});
