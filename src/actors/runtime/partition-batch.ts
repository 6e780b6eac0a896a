import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { OutgoingReply, PoisonMessage, SnapshotStore, Tallies } from './ports.js';
import { addTally, applyBatch, emptyOutcome, emptySlot, factsNeeded, type BatchOutcome } from './apply-batch.js';
import { decodeEntry, type MailboxEntry } from './entry-codec.js';
import type { PartitionMailbox, RawEntry } from './ports.js';
import { compareStreamIds } from './stream-id.js';
import type { SlotCache } from './slot-cache.js';
import type { ActorDefinition } from './types.js';

/** One partition's batch, applied and waiting for its commit. */
/**
 * What a round needs of a partition it applies (an Owned, seen from here: round-commit.ts
 * defines Owned with an `Applied[]` in it, so naming it here would make the two files import
 * each other).
 */
export interface BatchPartition {
  ops: PartitionMailbox;
  cache: SlotCache;
  poisonIds: ReadonlySet<string>;
  stranded: Set<string>;
  strandedMarks: Set<string>;
}

export interface Applied {
  /** Every entry id to acknowledge once committed (deleted and dead-lettered ones included). */
  ids: string[];
  /** The entries that were applied (for dead-lettering them if their commit is refused). */
  entries: MailboxEntry[];
  outcome: BatchOutcome;
  dead: PoisonMessage[];
}

export interface BatchDeps {
  def: ActorDefinition;
  store: SnapshotStore;
  log: Logger;
  metrics: Metrics;
  options: { maxDeliveries: number };
}

export function failedReply(p: PoisonMessage): OutgoingReply {
  const body = { code: 'ACTOR_FAILED', message: 'the actor could not process this message; it was dead-lettered' };
  return { stream: p.entry.reply, corr: p.entry.corr, ok: false, body: JSON.stringify(body) };
}

/** A partition's entries of one round, decoded, with the keys its cache lacks (after eviction). */
export interface Decoded {
  entries: MailboxEntry[];
  deletedIds: string[];
  missing: string[];
  /** The facts its messages need, loaded for this round (types with facts only; by factKey). */
  facts?: ReadonlyMap<string, unknown>;
  /** The tallies of its keys, loaded for this round (tallied types only). */
  tallies?: ReadonlyMap<string, Tallies>;
}

/**
 * Decodes a partition's raw entries and evicts its cache, then names the keys to load. Evicted
 * before choosing what to load: nothing may drop a state between the load and the apply.
 */
export function decodePartition(cache: SlotCache, raw: readonly RawEntry[]): Decoded {
  const entries: MailboxEntry[] = [];
  const deletedIds: string[] = [];
  for (const [id, fields] of raw) {
    const e = decodeEntry(id, fields);
    if (e) entries.push(e);
    else deletedIds.push(id);
  }
  cache.evict();
  const missing = [...new Set(entries.map((e) => e.key))].filter((k) => !cache.has(k));
  return { entries, deletedIds, missing };
}

/**
 * Splits a partition's decoded entries: those whose states are in the cache, with the deleted
 * ids, and those of the keys still to load (every entry of a key on the same side, in order).
 */
export function splitByCached(decoded: Decoded): { cached: Decoded; loaded: Decoded } {
  const missing = new Set(decoded.missing);
  return {
    cached: {
      entries: decoded.entries.filter((e) => !missing.has(e.key)),
      deletedIds: decoded.deletedIds,
      missing: [],
    },
    loaded: { entries: decoded.entries.filter((e) => missing.has(e.key)), deletedIds: [], missing: decoded.missing },
  };
}

/**
 * Loads the states every partition of a round lacks, in one query: one round trip to PostgreSQL
 * per round, not one per partition waited for in turn (a key lives in one partition only).
 */
export async function loadMissing(
  d: Pick<BatchDeps, 'def' | 'store'>,
  parts: ReadonlyArray<{ cache: SlotCache; decoded: Decoded }>,
): Promise<void> {
  const missing = parts.flatMap((p) => p.decoded.missing);
  if (missing.length === 0) return;
  const loaded = await d.store.load(d.def.type, missing);
  for (const p of parts) for (const k of p.decoded.missing) p.cache.set(k, loaded.get(k) ?? emptySlot());
}

/**
 * Loads what a round needs from the store: the states the caches lack, for a type with facts the
 * facts its messages name, and for a tallied type its keys' tallies. All in parallel, each one
 * query for all the round's partitions.
 *
 * A failed round ends only once every load has: the states' load puts what it read in the cache,
 * and one that landed after the worker's recovery had cleared the cache would stand there as
 * the key's state. Found in the PostgreSQL failover test: a facts query failed at once on a dead
 * connection, the states' query answered seconds later with a snapshot the replay had already
 * advanced, and the next round applied two redemptions on that stale state and wrote it over the
 * newer one (a version two ahead passes the commit's check): a redemption vanished from its
 * voucher's balance while its record stayed.
 */
export async function loadRound(
  d: Pick<BatchDeps, 'def' | 'store'>,
  parts: ReadonlyArray<{ cache: SlotCache; decoded: Decoded }>,
): Promise<void> {
  const loads = await Promise.allSettled([loadMissing(d, parts), loadFacts(d, parts), loadTallies(d, parts)]);
  const failed = loads.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failed) throw failed.reason;
}

async function loadFacts(
  d: Pick<BatchDeps, 'def' | 'store'>,
  parts: ReadonlyArray<{ decoded: Decoded }>,
): Promise<void> {
  if (!d.def.facts) return;
  const refs = parts.flatMap((p) => factsNeeded(d.def, p.decoded.entries));
  const facts = refs.length === 0 ? new Map<string, unknown>() : await d.store.loadFacts(d.def.type, refs);
  for (const p of parts) p.decoded.facts = facts;
}

/** Tallies are loaded every round, not cached: other actors' commits add to them meanwhile. */
async function loadTallies(
  d: Pick<BatchDeps, 'def' | 'store'>,
  parts: ReadonlyArray<{ decoded: Decoded }>,
): Promise<void> {
  if (!d.def.tallied) return;
  const keys = [...new Set(parts.flatMap((p) => p.decoded.entries.map((e) => e.key)))];
  const tallies = keys.length === 0 ? new Map<string, Tallies>() : await d.store.loadTallies(d.def.type, keys);
  for (const p of parts) p.decoded.tallies = tallies;
}

/**
 * Applies a decoded partition batch whose states are in the cache: sets aside poison (entries
 * claimed from dead owners more than MAX_DELIVERIES times, unless already applied; entries taken
 * back from a paused owner that later messages of their key overtook), and applies the rest.
 * The new states go into the cache pinned until their commit.
 */
function applyDecoded(
  d: BatchDeps,
  cache: SlotCache,
  decoded: Decoded,
  marks: { poisonIds: ReadonlySet<string>; stranded: Set<string> },
  now: Date,
): Applied {
  const { entries, deletedIds } = decoded;
  const poisoned: PoisonMessage[] = [];
  const live = entries.filter((e) => {
    const applied = compareStreamIds(e.id, cache.view.get(e.key)?.lastMsgId ?? '0-0') <= 0;
    // A stranded entry gets this look once: let through, it may be applied and committed before
    // its acknowledgement fails, and its replay must then count as a redelivery.
    if (!applied) marks.stranded.delete(e.id);
    if (applied && marks.stranded.has(e.id)) {
      poisoned.push({
        entry: e,
        error:
          'held by an earlier owner paused past its lease until later messages of its key were applied: set aside, not applied out of order',
      });
      return false;
    }
    if (!marks.poisonIds.has(e.id) || applied) return true;
    poisoned.push({ entry: e, error: `claimed from failed owners more than ${d.options.maxDeliveries} times` });
    return false;
  });

  const outcome = applyBatch(d.def, live, cache.view, now, decoded.facts, decoded.tallies);
  cache.adoptPinned(outcome.dirty);
  const dead = [...poisoned, ...outcome.poison];
  outcome.replies.push(...dead.filter((p) => p.entry.reply).map(failedReply));
  if (dead.length > 0) {
    d.metrics.deadLettered.inc({ type: d.def.type }, dead.length);
    for (const p of dead) d.log.error({ msgId: p.entry.id, key: p.entry.key, err: p.error }, 'message dead-lettered');
  }
  if (outcome.duplicates > 0) d.metrics.redeliveriesSkipped.inc({ type: d.def.type }, outcome.duplicates);
  return { ids: [...deletedIds, ...entries.map((e) => e.id)], entries: live, outcome, dead };
}

/**
 * Applies each partition's decoded entries (their states in the cache) and unmarks the stranded
 * ones let through.
 */
export async function applyParts<O extends BatchPartition>(
  d: BatchDeps,
  parts: ReadonlyArray<{ o: O; decoded: Decoded }>,
  now: Date,
): Promise<Array<[O, Applied]>> {
  const applied = parts.map(({ o, decoded }): [O, Applied] => [o, applyDecoded(d, o.cache, decoded, o, now)]);
  if (applied.some(([o]) => o.strandedMarks.size > 0)) {
    await Promise.all(applied.map(([o, a]) => unmarkLetThrough(o, a)));
  }
  return applied;
}

/**
 * Drops the marks of stranded entries that nothing newer of their key overtook, once they are
 * let through and before their commit: committed and then handed over unacknowledged, a marked
 * one would be set aside as stranded although it was applied. Unmarked, it replays like any
 * entry, in id order, so nothing later of its key can be applied before it.
 */
async function unmarkLetThrough(o: BatchPartition, a: Applied): Promise<void> {
  if (o.strandedMarks.size === 0) return;
  const ids = a.entries.filter((e) => o.strandedMarks.has(e.id)).map((e) => e.id);
  if (ids.length === 0) return;
  await o.ops.unmarkStranded(ids);
  for (const id of ids) o.strandedMarks.delete(id);
}

/**
 * Folds several batches of one partition into one commit: newest state per key (at its first
 * batch's version), all rows, all ids.
 */
export function mergeApplied(batches: readonly Applied[]): Applied {
  if (batches.length === 1) return batches[0]!;
  const merged: Applied = {
    ids: [],
    entries: [],
    dead: [],
    outcome: emptyOutcome(),
  };
  for (const b of batches) {
    merged.ids.push(...b.ids);
    merged.entries.push(...b.entries);
    merged.dead.push(...b.dead);
    // The newest state, at the version of the first round that changed it: one past the state the
    // held rounds started from, so a flush of rounds applied on a stale state is refused as a
    // round is (apply-batch.ts), however many rounds it merges.
    for (const [k, s] of b.outcome.dirty) {
      merged.outcome.dirty.set(k, { ...s, version: merged.outcome.dirty.get(k)?.version ?? s.version });
    }
    for (const [k, v] of b.outcome.views) merged.outcome.views.set(k, v);
    merged.outcome.outbox.push(...b.outcome.outbox);
    merged.outcome.records.push(...b.outcome.records);
    for (const [k, f] of b.outcome.facts) merged.outcome.facts.set(k, f);
    for (const t of b.outcome.tallies.values()) addTally(merged.outcome.tallies, t);
    merged.outcome.replies.push(...b.outcome.replies);
  }
  return merged;
}
