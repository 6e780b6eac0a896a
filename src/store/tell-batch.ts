import { TELL_TOPIC, type BatchCommit, type OutboxTell, type TellSender } from '../actors/runtime/ports.js';

/**
 * The outbox topic of a batch's tells written as one row (migration-free: the outbox's columns
 * hold it as they are). Before, every tell was a row of its own (`TELL_TOPIC`): a saga of six tells
 * inserted six rows with three index entries each and deleted them again, about half of the row
 * and index writes pg_walinspect counted for a conversion. Now a batch's commit writes one row for
 * all of its tells, and the worker that posts them deletes that one row.
 */
export const TELLS_TOPIC = 'tells';

/** One tell inside a batch row: its sender's key, message id and effect index, and what it says. */
interface BatchedTell {
  key: string;
  msg: string;
  seq: number;
  payload: unknown;
}

/**
 * The batch row's identity (the outbox's unique key, which the publishing worker deletes it by):
 * the batch's type, a key no actor can have beside its partition (`#p<n>`), the message id of its
 * first tell (a stream entry of that partition, applied once) and effect index -1, which no
 * effect has.
 */
function rowSender(type: string, partition: number, firstMsgId: string): TellSender {
  return { type, key: `#p${partition}`, msgId: firstMsgId, seq: -1 };
}

/** A batch's tells as its one outbox row, or undefined when it tells nothing. */
export function tellBatchRow(
  batch: Pick<BatchCommit, 'type' | 'partition' | 'outbox'>,
): { sender: TellSender; payload: BatchedTell[] } | undefined {
  const tells = batch.outbox.filter((o) => o.topic === TELL_TOPIC);
  const first = tells[0];
  if (!first) return undefined;
  return {
    sender: rowSender(batch.type, batch.partition, first.msgId),
    payload: tells.map((t) => ({ key: t.key, msg: t.msgId, seq: t.seq, payload: t.payload ?? null })),
  };
}

/**
 * The tells an outbox row holds, each with its own sender (whose identity marks its post: a tell
 * posted from its batch row and again from anywhere is posted once): a batch row's, in order, or
 * the one of a row of the older kind (`TELL_TOPIC`, and rows other writers such as the saga sweep
 * still write one by one).
 */
export function tellsOfRow(row: {
  topic: string;
  type: string;
  key: string;
  msg_id: string;
  seq: number;
  payload: unknown;
}): OutboxTell[] {
  if (row.topic !== TELLS_TOPIC) {
    return [{ sender: { type: row.type, key: row.key, msgId: row.msg_id, seq: row.seq }, payload: row.payload }];
  }
  return batchedTells(row.type, Array.isArray(row.payload) ? (row.payload as BatchedTell[]) : []);
}

/** The tells of a batch row's payload, written by an actor of `type`. */
export function batchedTells(type: string, payload: readonly BatchedTell[]): OutboxTell[] {
  return payload.map((t) => ({ sender: { type, key: t.key, msgId: t.msg, seq: t.seq }, payload: t.payload }));
}
