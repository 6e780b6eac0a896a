import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyRows } from '../../src/gateways/http/idempotency-rows.js';

/** The rules every store of Idempotency-Keys keeps, run against each adapter (PostgreSQL, memory). */
export function idempotencyRowsSuite(name: string, make: () => IdempotencyRows): void {
  describe(`IdempotencyRows conformance: ${name}`, () => {
    const claim = () => ({ owner: `k-${randomUUID()}`, key: randomUUID(), claim: randomUUID() });

    it('lets one request claim a key, keeps its answer, and finds it', async () => {
      const rows = make();
      const c = claim();
      expect(await rows.claim(c, 'h1')).toBe(true);
      expect(await rows.claim({ ...c, claim: randomUUID() }, 'h1')).toBe(false);
      expect(await rows.find(c.owner, c.key)).toEqual({
        requestHash: 'h1',
        status: null,
        body: null,
        stale: false,
        claim: c.claim,
      });
      await rows.keep(c, 201, 'sealed:x');
      expect(await rows.find(c.owner, c.key)).toMatchObject({ status: 201, body: 'sealed:x' });
      expect(await rows.find(c.owner, randomUUID())).toBeUndefined();
    });

    it('keeps an answer only into its own claim, and releases only its own unanswered claim', async () => {
      const rows = make();
      const c = claim();
      await rows.claim(c, 'h');
      const other = { ...c, claim: randomUUID() };
      await rows.keep(other, 201, 'theirs');
      await rows.release(other);
      expect(await rows.find(c.owner, c.key)).toMatchObject({ status: null, claim: c.claim });
      await rows.release(c);
      expect(await rows.find(c.owner, c.key)).toBeUndefined();
    });

    it('drops an unanswered claim of a key, never a kept answer', async () => {
      const rows = make();
      const open = claim();
      const answered = claim();
      await rows.claim(open, 'h');
      await rows.claim(answered, 'h');
      await rows.keep(answered, 409, 'refused');
      await rows.dropUnanswered(open.owner, open.key);
      await rows.dropUnanswered(answered.owner, answered.key);
      expect(await rows.find(open.owner, open.key)).toBeUndefined();
      expect(await rows.find(answered.owner, answered.key)).toMatchObject({ status: 409 });
      await rows.release(answered);
      expect(await rows.find(answered.owner, answered.key)).toMatchObject({ status: 409 });
    });
  });
}
