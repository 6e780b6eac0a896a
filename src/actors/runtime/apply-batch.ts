import { createHash } from 'node:crypto';
import type { MailboxEntry } from './entry-codec.js';
import { compareStreamIds } from './stream-id.js';
import type { ActorContext, ActorDefinition, ActorRejection } from './types.js';
import type { OutboxRow, OutgoingReply, PoisonMessage, RecordRow, Slot } from './ports.js';

/** An actor's state as the worker holds it between batches. */
export const emptySlot = (): Slot => ({ state: undefined, version: 0, lastMsgId: '0-0' });

export interface BatchOutcome {
  /** Keys whose state changed, with their new slot. */
  dirty: Map<string, Slot>;
  outbox: OutboxRow[];
  records: RecordRow[];
  /** The read model row of each dirty key (only for a type with a read model). */
  views: Map<string, Record<string, unknown> | undefined>;
  replies: OutgoingReply[];
  /** Messages whose `decide` threw: dead-lettered by the caller (pure code fails the same way again). */
  poison: PoisonMessage[];
  /** Redeliveries of messages already applied: acknowledged, not applied again. */
  duplicates: number;
}

export const emptyOutcome = (): BatchOutcome => ({
  dirty: new Map(),
  outbox: [],
  records: [],
  views: new Map(),
  replies: [],
  poison: [],
  duplicates: 0,
});

/** A UUID-shaped id derived from the message: stable when the same message is applied again. */
export function derivedId(type: string, key: string, msgId: string, n: number): string {
  const h = createHash('sha256').update(`${type}\u0000${key}\u0000${msgId}\u0000${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function rejectionReply(entry: MailboxEntry, rejection: ActorRejection): OutgoingReply | undefined {
  if (!entry.reply) return undefined;
  return { stream: entry.reply, corr: entry.corr, ok: false, body: JSON.stringify(rejection) };
}

/**
 * Applies one batch of mailbox entries, in stream order, to the slots of their keys. Pure apart
 * from reading `slots` (it never mutates them): the caller commits `dirty` and `outbox`, and only
 * then sends `replies` and adopts the new slots.
 */
export function applyBatch(
  def: ActorDefinition,
  entries: readonly MailboxEntry[],
  slots: ReadonlyMap<string, Slot>,
  now: Date,
): BatchOutcome {
  const outcome = emptyOutcome();
  const current = (key: string): Slot => outcome.dirty.get(key) ?? slots.get(key) ?? emptySlot();

  for (const entry of entries) {
    const slot = current(entry.key);
    if (compareStreamIds(entry.id, slot.lastMsgId) <= 0) {
      outcome.duplicates++;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry.body);
    } catch {
      pushReply(outcome, rejectionReply(entry, { code: 'INVALID_JSON', message: 'message body is not JSON' }));
      continue;
    }
    const msg = def.messages.safeParse(parsed);
    if (!msg.success) {
      const details = msg.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      pushReply(outcome, rejectionReply(entry, { code: 'VALIDATION_FAILED', message: 'invalid message', details }));
      continue;
    }
    const ctx: ActorContext = {
      type: def.type,
      key: entry.key,
      msgId: entry.id,
      now,
      id: (n = 0) => derivedId(def.type, entry.key, entry.id, n),
    };
    let decision;
    let replyBody: string | undefined;
    let viewRow: Record<string, unknown> | undefined;
    try {
      decision = def.decide(slot.state, msg.data, ctx);
      // The read model row is product code too: computed here, a row that throws fails its message.
      if (def.view && decision.state !== undefined && !decision.rejection) viewRow = def.view.row(decision.state);
      // A reply JSON cannot carry (a BigInt, a cycle) fails this message, not the whole batch.
      if (entry.reply && !decision.rejection) replyBody = JSON.stringify(decision.reply ?? null);
    } catch (err) {
      outcome.poison.push({ entry, error: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (decision.rejection) {
      pushReply(outcome, rejectionReply(entry, decision.rejection));
      continue;
    }
    const effects = decision.effects ?? [];
    const records = decision.records ?? [];
    // Effects alone also record the message id, so a redelivery cannot emit them twice.
    if (decision.state !== undefined || slot.state !== undefined || effects.length > 0 || records.length > 0) {
      outcome.dirty.set(entry.key, { state: decision.state, version: slot.version + 1, lastMsgId: entry.id });
      if (def.view) outcome.views.set(entry.key, viewRow);
    }
    for (const r of records)
      outcome.records.push({ key: entry.key, msgId: entry.id, kind: r.kind, id: r.id, body: r.body });
    effects.forEach((effect, seq) => {
      outcome.outbox.push({ key: entry.key, msgId: entry.id, seq, topic: effect.topic, payload: effect.payload });
    });
    if (entry.reply) {
      pushReply(outcome, { stream: entry.reply, corr: entry.corr, ok: true, body: replyBody ?? 'null' });
    }
  }
  return outcome;
}

function pushReply(outcome: BatchOutcome, reply: OutgoingReply | undefined): void {
  if (reply) outcome.replies.push(reply);
}
