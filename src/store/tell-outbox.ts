import { TELL_TOPIC, type OutboxTell, type TellOutbox } from '../actors/runtime/ports.js';
import type { Sql } from './db.js';

/**
 * The outbox's tells in PostgreSQL: a batch is deleted `FOR UPDATE SKIP LOCKED` (so every worker's
 * relay takes its own rows), posted, and the delete committed after. A crash or a failed post
 * rolls it back: the rows are posted again, and the relay's marks make that a no-op.
 */
export function createPgTellOutbox(sql: Sql): TellOutbox {
  return {
    relay: (batch, post) =>
      sql.begin(async (tx) => {
        // A relay gone silent (its host lost, its connection not yet noticed dead) gives its rows
        // back after 60 s, within the posted marks' lifetime (outbox-relay.ts, TOLD_TTL_S).
        await tx`SET LOCAL idle_in_transaction_session_timeout = '60s'`;
        const rows = await tx<OutboxTell[]>`
          DELETE FROM outbox WHERE id IN (
            SELECT id FROM outbox WHERE topic = ${TELL_TOPIC} AND processed_at IS NULL
            ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
          RETURNING id::text AS id, payload`;
        rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        if (rows.length > 0) await post(rows);
        return rows.length;
      }),
  };
}
