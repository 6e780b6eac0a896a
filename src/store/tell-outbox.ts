import { TELL_TOPIC, type OutboxTell, type TellOutbox, type TellSender } from '../actors/runtime/ports.js';
import type { Sql } from './db.js';
import { tellsOfRow, TELLS_TOPIC } from './tell-batch.js';

/**
 * The outbox's tells in PostgreSQL: a commit's tells in one row per batch (tell-batch.ts), and
 * rows of one tell each (written before that, or by the saga sweep). `relay` deletes a batch of
 * rows `FOR UPDATE SKIP LOCKED` (so every worker's relay takes its own rows), posts their tells,
 * and commits the delete after: a crash or a failed post rolls it back and the rows are posted
 * again, which the relay's marks make a no-op. `forget` deletes the rows a worker posted itself
 * right after its commit, by their identity (a batch row's is its own, tell-batch.ts), through
 * `forgetSql` when given: a connection whose commits need not wait for their WAL flush (a delete
 * lost in a crash leaves rows the relay posts again, as a no-op).
 */
export function createPgTellOutbox(sql: Sql, forgetSql: Sql = sql): TellOutbox {
  return {
    relay: (batch, minAgeMs, post) =>
      sql.begin(async (tx) => {
        // A relay gone silent (its host lost, its connection not yet noticed dead) gives its rows
        // back after 60 s, within the posted marks' lifetime (outbox-relay.ts, TOLD_TTL_S).
        await tx`SET LOCAL idle_in_transaction_session_timeout = '60s'`;
        const rows = await tx<
          Array<{ id: string; topic: string; type: string; key: string; msg_id: string; seq: number; payload: unknown }>
        >`
          DELETE FROM outbox WHERE id IN (
            SELECT id FROM outbox
            WHERE topic IN (${TELL_TOPIC}, ${TELLS_TOPIC}) AND processed_at IS NULL
              AND created_at < now() - make_interval(secs => ${minAgeMs / 1000})
            ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
          RETURNING id::text AS id, topic, actor_type AS type, actor_key AS key, msg_id, seq, payload`;
        rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        const tells: OutboxTell[] = rows.flatMap(tellsOfRow);
        if (tells.length > 0) await post(tells);
        // Rows, not tells: what the relay's batch counts (a row may hold a commit's tells).
        return rows.length;
      }),
    forget: async (sent: readonly TellSender[]) => {
      if (sent.length === 0) return;
      // Each row by its unique key (a LATERAL probe, planned at each call): a join of the outbox,
      // whose head is dead rows between two vacuums, was planned as a scan of it (1.4 ms a
      // delete, measured, and growing until the next vacuum).
      await forgetSql.unsafe(
        `DELETE FROM outbox WHERE ctid = ANY (ARRAY(
           SELECT o.ctid FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS x(type, key, msg_id, seq)
           CROSS JOIN LATERAL (
             SELECT ctid FROM outbox
             WHERE actor_type = x.type AND actor_key = x.key AND msg_id = x.msg_id AND seq = x.seq
               AND topic IN ($5, $6)
             LIMIT 1) o))`,
        [
          sent.map((s) => s.type),
          sent.map((s) => s.key),
          sent.map((s) => s.msgId),
          sent.map((s) => s.seq),
          TELL_TOPIC,
          TELLS_TOPIC,
        ],
        { prepare: false },
      );
    },
  };
}
