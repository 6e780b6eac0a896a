import type { TransactionSql } from 'postgres';
import { type TELL_TOPIC } from '../actors/runtime/ports.js';

/** An outbox row written outside an actor's commit (a system's message, not an actor's effect). */
export interface SystemOutboxRow {
  topic: 'ledger' | typeof TELL_TOPIC;
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
 * relays post the tells (outbox-relay.ts); the ledger writer takes the ledger entries.
 */
export async function writeSystemOutbox(tx: TransactionSql, rows: readonly SystemOutboxRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const doc = JSON.stringify(
    rows.map((r) => ({ topic: r.topic, type: r.sender, key: r.key, msg: r.msgId, seq: r.seq, payload: r.payload })),
  );
  const written = await tx`
    INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
    SELECT x.topic, x.type, x.key, x.msg, x.seq, x.payload
    FROM jsonb_to_recordset(${doc}::text::jsonb) AS x(topic text, type text, key text, msg text, seq int, payload jsonb)
    ON CONFLICT (actor_type, actor_key, msg_id, seq) DO NOTHING
    RETURNING 1`;
  return written.length;
}
