import type { TransactionSql } from 'postgres';
import { LEDGER_TOPIC, TELL_TOPIC } from '../actors/runtime/ports.js';

/** An outbox row written outside an actor's commit (a system's message, not an actor's effect). */
export interface SystemOutboxRow {
  topic: typeof LEDGER_TOPIC | typeof TELL_TOPIC;
  /** Who sends it: a name that is no actor type (`saga-sweep`, `ussd-account`). */
  sender: string;
  /** Its identity with `sender`, `msgId` and `seq`: the same row written twice is written once. */
  key: string;
  msgId: string;
  seq: number;
  payload: unknown;
}

/**
 * The outbox's one writer outside the commit statement (snapshot-store.ts writes an actor's
 * effects with its state): rows a system writes in its own transaction, each once by its identity
 * (sender, key, message id, seq), so that a sweep or a registration run twice adds nothing. The
 * relays post the tells (outbox-relay.ts); ledger entries go where they stay, `ledger_entries`,
 * for the ledger writer to chain (migration 026).
 */
export async function writeSystemOutbox(tx: TransactionSql, rows: readonly SystemOutboxRow[]): Promise<number> {
  const doc = (topic: SystemOutboxRow['topic']) =>
    JSON.stringify(
      rows
        .filter((r) => r.topic === topic)
        .map((r) => ({ type: r.sender, key: r.key, msg: r.msgId, seq: r.seq, payload: r.payload })),
    );
  let written = 0;
  if (rows.some((r) => r.topic === TELL_TOPIC)) {
    const tells = await tx`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      SELECT ${TELL_TOPIC}, x.type, x.key, x.msg, x.seq, x.payload
      FROM jsonb_to_recordset(${doc(TELL_TOPIC)}::text::jsonb) AS x(type text, key text, msg text, seq int, payload jsonb)
      ON CONFLICT (actor_type, actor_key, msg_id, seq) DO NOTHING
      RETURNING 1`;
    written += tells.length;
  }
  if (rows.some((r) => r.topic === LEDGER_TOPIC)) {
    const entries = await tx`
      INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload, ref)
      SELECT x.type, x.key, x.msg, x.seq, x.payload, x.payload ->> 'ref'
      FROM jsonb_to_recordset(${doc(LEDGER_TOPIC)}::text::jsonb) AS x(type text, key text, msg text, seq int, payload jsonb)
      ON CONFLICT (actor_type, actor_key, msg_id, seq) WHERE txid IS NOT NULL DO NOTHING
      RETURNING 1`;
    written += entries.length;
  }
  return written;
}
