import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRows } from '../../src/gateways/auth/api-key-rows.js';

/** The rules every store of API keys keeps, run against each adapter (PostgreSQL, memory). */
export function apiKeyRowsSuite(name: string, make: () => ApiKeyRows): void {
  describe(`ApiKeyRows conformance: ${name}`, () => {
    const id = () => randomBytes(8).toString('hex');

    it('keeps a key with its hash and leaves out what it was not given', async () => {
      const rows = make();
      const k = { id: id(), hash: 'ab'.repeat(32), role: 'implementer' as const };
      const stored = await rows.insert(k);
      expect(stored).toMatchObject(k);
      expect(stored).not.toHaveProperty('did');
      expect(stored).not.toHaveProperty('revokedAt');
      expect(await rows.get(k.id)).toEqual(stored);
      expect(await rows.get(id())).toBeUndefined();
    });

    it('lists oldest first, keys made back to back included', async () => {
      const rows = make();
      const first = await rows.insert({ id: id(), hash: 'cd'.repeat(32), role: 'supplier', did: 'did:key:z1' });
      const second = await rows.insert({ id: id(), hash: 'ef'.repeat(32), role: 'admin', label: 'ops' });
      const ids = (await rows.all()).map((k) => k.id).filter((x) => x === first.id || x === second.id);
      expect(ids).toEqual([first.id, second.id]);
    });

    it('revokes once: a second revocation keeps the first time; an unknown id answers undefined', async () => {
      const rows = make();
      const k = await rows.insert({ id: id(), hash: '01'.repeat(32), role: 'regulator' });
      const revoked = await rows.revoke(k.id);
      expect(revoked?.revokedAt).toBeDefined();
      expect((await rows.revoke(k.id))?.revokedAt).toBe(revoked?.revokedAt);
      expect(await rows.revoke(id())).toBeUndefined();
    });
  });
}
