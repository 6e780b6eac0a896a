import type { Sql } from '../../store/db.js';

/** A claim a request made on its key: the key, and the token that tells it from any other request's. */
export interface Claim {
  owner: string;
  key: string;
  claim: string;
}

/** What a key holds: its first request's hash, and its answer once kept (none while it runs). */
interface KeptKey {
  requestHash: string;
  status: number | null;
  body: string | null;
  /** Claimed over two minutes ago: a request still unanswered by then died with its process. */
  stale: boolean;
  claim: string | null;
}

/**
 * Where Idempotency-Keys are kept: the `idempotency_keys` table (migrations 003, 025), or memory
 * for the product tier's tests (`memory-idempotency-rows.ts`). Both pass
 * test/support/idempotency-rows-suite.ts.
 */
export interface IdempotencyRows {
  /** Claims the key for a request; false when it is held already. */
  claim(c: Claim, requestHash: string): Promise<boolean>;
  /** Keeps the answer, into this claim only (a retry may have released it and claimed anew). */
  keep(c: Claim, status: number, body: string): Promise<void>;
  find(owner: string, key: string): Promise<KeptKey | undefined>;
  /** Drops the key's claim if no answer was kept for it. */
  dropUnanswered(owner: string, key: string): Promise<void>;
  /** Drops this claim if no answer was kept for it. */
  release(c: Claim): Promise<void>;
}

/** When an unanswered claim lapses (see {@link KeptKey.stale}; the table's query says 2 minutes too). */
export const CLAIM_LAPSES_AFTER_MS = 2 * 60_000;

export function pgIdempotencyRows(sql: Sql): IdempotencyRows {
  return {
    async claim(c, requestHash) {
      const [claimed] = await sql<{ key: string }[]>`
        INSERT INTO idempotency_keys (owner, key, request_hash, claim)
        VALUES (${c.owner}, ${c.key}, ${requestHash}, ${c.claim})
        ON CONFLICT DO NOTHING RETURNING key`;
      return claimed !== undefined;
    },
    async keep(c, status, body) {
      await sql`
        UPDATE idempotency_keys SET status = ${status}, body = ${body}
        WHERE owner = ${c.owner} AND key = ${c.key} AND claim = ${c.claim}`;
    },
    async find(owner, key) {
      const [row] = await sql<
        { request_hash: string; status: number | null; body: string | null; stale: boolean; claim: string | null }[]
      >`
        SELECT request_hash, status, body,
               created_at < now() - interval '2 minutes' AS stale, claim
        FROM idempotency_keys WHERE owner = ${owner} AND key = ${key}`;
      return row
        ? { requestHash: row.request_hash, status: row.status, body: row.body, stale: row.stale, claim: row.claim }
        : undefined;
    },
    async dropUnanswered(owner, key) {
      await sql`DELETE FROM idempotency_keys WHERE owner = ${owner} AND key = ${key} AND status IS NULL`;
    },
    async release(c) {
      await sql`
        DELETE FROM idempotency_keys
        WHERE owner = ${c.owner} AND key = ${c.key} AND status IS NULL AND claim = ${c.claim}`;
    },
  };
}
