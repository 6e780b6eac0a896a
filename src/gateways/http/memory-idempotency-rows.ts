import { CLAIM_LAPSES_AFTER_MS, type IdempotencyRows } from './idempotency-rows.js';

interface Row {
  requestHash: string;
  status: number | null;
  body: string | null;
  claim: string;
  at: number;
}

/** Idempotency-Keys in memory, for the product tier's tests. Not for deployments: nothing survives the process. */
export function memoryIdempotencyRows(now: () => number = Date.now): IdempotencyRows {
  const rows = new Map<string, Row>();
  const id = (owner: string, key: string) => `${owner}\u0000${key}`;
  return {
    claim(c, requestHash) {
      if (rows.has(id(c.owner, c.key))) return Promise.resolve(false);
      rows.set(id(c.owner, c.key), { requestHash, status: null, body: null, claim: c.claim, at: now() });
      return Promise.resolve(true);
    },
    keep(c, status, body) {
      const row = rows.get(id(c.owner, c.key));
      if (row?.claim === c.claim) Object.assign(row, { status, body });
      return Promise.resolve();
    },
    find(owner, key) {
      const row = rows.get(id(owner, key));
      if (!row) return Promise.resolve(undefined);
      const { requestHash, status, body, claim, at } = row;
      return Promise.resolve({ requestHash, status, body, claim, stale: at < now() - CLAIM_LAPSES_AFTER_MS });
    },
    dropUnanswered(owner, key) {
      if (rows.get(id(owner, key))?.status === null) rows.delete(id(owner, key));
      return Promise.resolve();
    },
    release(c) {
      const row = rows.get(id(c.owner, c.key));
      if (row?.status === null && row.claim === c.claim) rows.delete(id(c.owner, c.key));
      return Promise.resolve();
    },
  };
}
