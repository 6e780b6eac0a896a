import { describe, expect, it } from 'vitest';
import { createKeys, productKey } from '../../../../src/store/redis/keys.js';
import { authKeys } from '../../../../src/gateways/auth/auth-keys.js';
import { ussdKeys } from '../../../../src/gateways/ussd/ussd-keys.js';

describe('productKey (the one helper every product builds its Redis keys with)', () => {
  const keys = createKeys('hearth');

  it('names a key under the prefix, with the hash tag in braces when given', () => {
    expect(productKey(keys, 'ussd', ['rate', 'abc', 42])).toBe('hearth:ussd:rate:abc:42');
    expect(productKey(keys, 'ussd', ['live'], 's3')).toBe('hearth:{ussd:s3}:live');
    expect(authKeys.seenSignature(keys, 'f00')).toBe('hearth:sig:f00');
    expect(ussdKeys.unknownCodes(keys, 'd1', 7)).toBe('hearth:ussd:unknown-codes:d1:7');
  });

  it('refuses a part that could change the key’s shape or slot', () => {
    for (const bad of ['', 'a b', 'x}y', '{tag}', 'a'.repeat(129), 'é']) {
      expect(() => productKey(keys, 'chat', [bad])).toThrow(/invalid key part/);
    }
    expect(() => productKey(keys, 'Chat', ['x'])).toThrow(/invalid/);
    expect(() => productKey(keys, 'chat', ['x'], 'a}b')).toThrow(/invalid key part/);
  });
});
