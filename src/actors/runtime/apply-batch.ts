import { createHash } from 'node:crypto';
import { uuidShaped } from '../../common/uuid-shaped.js';
import type { MailboxEntry } from './entry-codec.js';
import { compareStreamIds } from './stream-id.js';
import { recordFact, type ActorContext, type ActorDefinition, type ActorRejection } from './types.js';
import {
  factKey,
  type FactRow,
  type OutboxRow,
  type OutgoingReply,
  type PoisonMessage,
  type RecordRow,
  type Slot,
  type Tallies,
  type TallyRow,
} from './ports.js';

/** An actor's state as the worker holds it between batches. */
export const emptySlot = (): Slot => ({ state: undefined, version: 0, lastMsgId: '0-0' });

export interface BatchOutcome {
  /** Keys whose state changed, with their new slot. */
  dirty: Map<string, Slot>;
  outbox: OutboxRow[];
  records: RecordRow[];
  /** Facts written, by {@link factKey}: the last write of each (one row per fact per commit). */
  facts: Map<string, FactRow>;
  /** Tally additions, summed per actor and name (one row each per commit). */
  tallies: Map<string, TallyRow>;
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
  facts: new Map(),
  tallies: new Map(),
  views: new Map(),
  replies: [],
  poison: [],
  duplicates: 0,
});

/** A UUID-shaped id derived from the message: stable when the same message is applied again. */
export function derivedId(type: string, key: string, msgId: string, n: number): string {
  return uuidShaped(createHash('sha256').update(`${type}\u0000${key}\u0000${msgId}\u0000${n}`).digest('hex'));
}

function rejectionReply(entry: MailboxEntry, rejection: ActorRejection): OutgoingReply | undefined {
  if (!entry.reply) return undefined;
  return { stream: entry.reply, corr: entry.corr, ok: false, body: JSON.stringify(rejection) };
}

type Parsed = { ok: true; msg: { kind: string } } | { ok: false; rejection: ActorRejection };

/** Each entry's message, parsed once: the facts a round loads are named by the parsed messages. */
const parsedEntries = new WeakMap<MailboxEntry, Parsed>();

function parseEntry(def: ActorDefinition, entry: MailboxEntry): Parsed {
  const known = parsedEntries.get(entry);
  if (known) return known;
  let result: Parsed;
  try {
    const msg = def.messages.safeParse(JSON.parse(entry.body));
    result = msg.success
      ? { ok: true, msg: msg.data }
      : {
          ok: false,
          rejection: {
            code: 'VALIDATION_FAILED',
            message: 'invalid message',
            details: msg.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
          },
        };
  } catch {
    result = { ok: false, rejection: { code: 'INVALID_JSON', message: 'message body is not JSON' } };
  }
  parsedEntries.set(entry, result);
  return result;
}

/** Entries whose `needs` threw: dead-lettered when applied, as a `decide` that throws. */
const needsFailed = new WeakMap<MailboxEntry, string>();

/** The facts a batch's messages need (FactsPolicy.needs), each once. */
export function factsNeeded(
  def: ActorDefinition,
  entries: readonly MailboxEntry[],
): Array<{ key: string; id: string }> {
  if (!def.facts) return [];
  const wanted = new Map<string, { key: string; id: string }>();
  for (const entry of entries) {
    const parsed = parseEntry(def, entry);
    if (!parsed.ok) continue;
    let ids: readonly string[];
    try {
      ids = def.facts.needs(parsed.msg, entry.key);
    } catch (err) {
      // Product code: failing the round would replay it for ever.
      needsFailed.set(entry, err instanceof Error ? err.message : String(err));
      continue;
    }
    for (const id of ids) wanted.set(factKey(entry.key, id), { key: entry.key, id });
  }
  return [...wanted.values()];
}

/**
 * Applies one batch of mailbox entries, in stream order, to the slots of their keys. Pure apart
 * from reading `slots` and `facts` (it never mutates them): the caller commits `dirty`, `outbox`
 * and `facts`, and only then sends `replies` and adopts the new slots.
 */
export function applyBatch(
  def: ActorDefinition,
  entries: readonly MailboxEntry[],
  slots: ReadonlyMap<string, Slot>,
  now: Date,
  /** The facts loaded for this batch (by factKey); absent ones read as undefined. */
  facts: ReadonlyMap<string, unknown> = new Map(),
  /** The tallies loaded for this batch, by actor key (types with `tallied` only). */
  tallies: ReadonlyMap<string, Tallies> = new Map(),
): BatchOutcome {
  const outcome = emptyOutcome();
  const current = (key: string): Slot => outcome.dirty.get(key) ?? slots.get(key) ?? emptySlot();
  /** Records written by earlier messages of the batch, as facts (types.ts, recordFact). */
  const recorded = new Map<string, unknown>();
  const fact = (key: string, id: string): unknown => {
    const k = factKey(key, id);
    const written = outcome.facts.get(k);
    if (written) return written.body ?? undefined;
    return recorded.get(k) ?? facts.get(k);
  };

  for (const entry of entries) {
    const slot = current(entry.key);
    if (compareStreamIds(entry.id, slot.lastMsgId) <= 0) {
      outcome.duplicates++;
      continue;
    }
    const msg = parseEntry(def, entry);
    if (!msg.ok) {
      pushReply(outcome, rejectionReply(entry, msg.rejection));
      continue;
    }
    const failed = needsFailed.get(entry);
    if (failed !== undefined) {
      outcome.poison.push({ entry, error: failed });
      continue;
    }
    const ctx: ActorContext = {
      type: def.type,
      key: entry.key,
      msgId: entry.id,
      now,
      id: (n = 0) => derivedId(def.type, entry.key, entry.id, n),
      fact: (id) => fact(entry.key, id),
      tallies: () => tallies.get(entry.key) ?? noTallies,
    };
    let decision;
    let replyBody: string | undefined;
    let viewRow: Record<string, unknown> | undefined;
    try {
      decision = def.decide(slot.state, msg.msg, ctx);
      // The read model row is product code too: computed here, a row that throws fails its message.
      if (def.view && decision.state !== undefined && !decision.rejection) viewRow = def.view.row(decision.state);
      // A reply JSON cannot carry (a BigInt, a cycle) fails this message, not the whole batch.
      if (entry.reply && !decision.rejection) replyBody = JSON.stringify(decision.reply ?? null);
      // So does a tally that adds no integer: summed below, it would fail the whole round, again.
      for (const t of decision.tallies ?? []) {
        if (!/^-?\d{1,30}$/.test(t.by)) throw new Error(`a tally of ${t.type} ${t.key} adds "${t.by}", not an integer`);
      }
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
    const factWrites = decision.facts ?? [];
    const tallyWrites = decision.tallies ?? [];
    // A message that changed nothing (a `get`, a repeat answered as it stands) writes nothing:
    // answered again after a crash, it answers the same.
    const changed =
      decision.state !== slot.state ||
      effects.length > 0 ||
      records.length > 0 ||
      factWrites.length > 0 ||
      tallyWrites.length > 0;
    // Effects alone also record the message id, so a redelivery cannot emit them twice: an actor
    // that still has no state then keeps a snapshot of JSON null (never SQL NULL). The version is
    // one past the state the batch started from, however many of its messages the key took: the
    // commit writes a snapshot only over an older version, so a batch applied on a stale state (one
    // a newer commit has passed) is refused whole, never written over the newer state.
    if (changed) {
      const version = (slots.get(entry.key) ?? emptySlot()).version + 1;
      outcome.dirty.set(entry.key, { state: decision.state, version, lastMsgId: entry.id });
      if (def.view) outcome.views.set(entry.key, viewRow);
    }
    for (const f of factWrites) {
      outcome.facts.set(factKey(entry.key, f.id), { key: entry.key, id: f.id, body: f.body ?? null });
    }
    for (const t of tallyWrites) addTally(outcome.tallies, t);
    for (const r of records) {
      outcome.records.push({ key: entry.key, msgId: entry.id, kind: r.kind, id: r.id, body: r.body });
      if (def.facts) recorded.set(factKey(entry.key, recordFact(r.kind, r.id)), r.body);
    }
    effects.forEach((effect, seq) => {
      outcome.outbox.push({ key: entry.key, msgId: entry.id, seq, topic: effect.topic, payload: effect.payload });
    });
    if (entry.reply) {
      pushReply(outcome, { stream: entry.reply, corr: entry.corr, ok: true, body: replyBody ?? 'null' });
    }
  }
  if (def.view) dropUnchangedRows(def.view, slots, outcome.views);
  return outcome;
}

const noTallies: Tallies = Object.freeze({});

/** Sums a batch's additions to the same tally: a commit writes one row per actor and name. */
export function addTally(into: Map<string, TallyRow>, t: TallyRow): void {
  const k = `${t.type}\u0000${t.key}\u0000${t.name}`;
  const before = into.get(k);
  into.set(k, before ? { ...t, by: String(BigInt(before.by) + BigInt(t.by)) } : { ...t });
}

/**
 * Read model rows are written by what changed: a row equal to the one of the state the batch
 * started from (a redemption credited on an account whose read row shows only totals, say, is a
 * change; a swap refused is not) is left as it is in its table.
 */
function dropUnchangedRows(
  view: NonNullable<ActorDefinition['view']>,
  slots: ReadonlyMap<string, Slot>,
  rows: Map<string, Record<string, unknown> | undefined>,
): void {
  for (const [key, row] of rows) {
    const before = slots.get(key)?.state;
    if (before === undefined || row === undefined) continue;
    try {
      if (JSON.stringify(view.row(before)) === JSON.stringify(row)) rows.delete(key);
    } catch {
      // The row of the old state cannot be computed: write the new one, as before.
    }
  }
}

function pushReply(outcome: BatchOutcome, reply: OutgoingReply | undefined): void {
  if (reply) outcome.replies.push(reply);
}
