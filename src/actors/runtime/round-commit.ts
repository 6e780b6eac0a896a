import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { FencedError, type BatchCommit, type Mailbox, type PartitionMailbox } from './ports.js';
import { failedReply, type Applied } from './partition-batch.js';
import type { SlotCache } from './slot-cache.js';
import { viewOf } from './read-model.js';
import type { ActorDefinition } from './types.js';

/** One partition a type worker owns, with what it keeps between rounds. */
export interface Owned {
  partition: number;
  epoch: number;
  ops: PartitionMailbox;
  cache: SlotCache;
  /** `'>'` for new entries; otherwise the id after which this consumer's pending history is read. */
  cursor: string;
  prepared: boolean;
  lost: boolean;
  /** performance.now() until which the lease surely holds; no read is issued past it. */
  validUntil: number;
  /** Entries claimed from failed owners (their takeover count is forgotten once acknowledged). */
  claimed: Set<string>;
  /** Claimed entries past MAX_DELIVERIES takeovers: dead-lettered unless already applied. */
  poisonIds: Set<string>;
  /**
   * Entries taken back from an earlier owner paused past its lease (see TypeWorker.maybeSweep):
   * never applied, since that owner's commit was fenced. One older than its key's last applied
   * message is dead-lettered, not skipped as a redelivery nor applied out of order.
   */
  stranded: Set<string>;
  /**
   * Entries marked stranded in Redis (by this owner's take-back, or an earlier owner's) and not
   * yet acknowledged: their marks go with their acknowledgement.
   */
  strandedMarks: Set<string>;
  /** Write-behind only: applied, replied, not yet committed. */
  unflushed: Applied[];
  unflushedSince: number;
}

/** A partition just taken at `epoch`: it reads its pending history first (cursor `'0'`). */
export function newOwned(
  partition: number,
  epoch: number,
  validUntil: number,
  ops: PartitionMailbox,
  cache: SlotCache,
): Owned {
  return {
    partition,
    epoch,
    validUntil,
    ops,
    cache,
    cursor: '0',
    prepared: false,
    lost: false,
    claimed: new Set(),
    poisonIds: new Set(),
    stranded: new Set(),
    strandedMarks: new Set(),
    unflushed: [],
    unflushedSince: 0,
  };
}

/** Postgres refused the data itself (SQLSTATE class 22 data exception, 23 integrity): retrying the same batch cannot help. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

export interface RoundEnv {
  d: {
    def: ActorDefinition;
    workerId: string;
    mailbox: Mailbox;
    commit: (batch: BatchCommit) => Promise<void>;
    metrics: Metrics;
    log: Logger;
  };
  /** The worker is reading one entry per partition to find an entry Postgres refuses. */
  isolating: boolean;
  /** Drops a partition a newer owner holds. */
  lose: (o: Owned, reason: string) => void;
  /**
   * Keeps a committed round's acknowledgements and replies that Redis did not take, for the
   * worker to send again before its next read (settle-debt.ts).
   */
  owe: (settle: SettleBatches) => void;
}

/** What one settle sends: per partition, the entries to acknowledge and the replies to post. */
export type SettleBatches = Parameters<Mailbox['settleMany']>[0];

/**
 * Commits a round: every partition's batch in one statement (through the group committer), then
 * each committed partition acknowledges and replies, even when another one failed. A fenced
 * partition is dropped; while isolating, an entry alone in a batch that Postgres refuses is
 * dead-lettered. Throws the first other failure (after the settles), so the worker replays.
 */
export async function commitRound(env: RoundEnv, batches: Array<[Owned, Applied]>, reply: boolean): Promise<void> {
  await (
    await commitThenSettle(env, batches, reply)
  ).settled;
}

/**
 * {@link commitRound} in two steps: resolves once the commit is done (every partition's outcome
 * known), with `settled` for the acknowledgements and replies still on their way. The next round
 * may commit as soon as this one has: it waits on PostgreSQL, not on Redis answering this one's
 * settles (which go out on one connection, in order, before the next round's). Rejects, after
 * the settles, when the commit failed for another reason than a fence.
 */
export async function commitThenSettle(
  env: RoundEnv,
  batches: Array<[Owned, Applied]>,
  reply: boolean,
): Promise<{ settled: Promise<void> }> {
  const { d } = env;
  const type = d.def.type;
  const started = performance.now();
  const results = await Promise.allSettled(
    batches.map(([o, a]) =>
      o.lost
        ? Promise.reject(new FencedError('partition already lost'))
        : d.commit({
            type,
            partition: o.partition,
            epoch: o.epoch,
            dirty: a.outcome.dirty,
            outbox: a.outcome.outbox,
            records: a.outcome.records,
            facts: [...a.outcome.facts.values()],
            tallies: [...a.outcome.tallies.values()],
            view: viewOf(d.def.view, a.outcome.views),
          }),
    ),
  );
  d.metrics.commitDuration.observe({ type }, (performance.now() - started) / 1000);
  d.metrics.commitBatchSize.observe(
    { type },
    batches.reduce((n, [, a]) => n + a.ids.length, 0),
  );
  sampleSnapshotSizes(d.metrics, type, batches);
  const settles: Array<Promise<void>> = [];
  const plain: Array<[Owned, Applied]> = [];
  let failure: Error | undefined;
  results.forEach((r, i) => {
    const [o, a] = batches[i]!;
    if (r.status === 'fulfilled') {
      // A write-behind flush merges several rounds' pins; its caller unpins them round by round.
      if (reply) o.cache.unpin(a.outcome.dirty.keys());
      if (a.dead.length > 0) settles.push(settlePartition(env, o, a, reply));
      else plain.push([o, a]);
    } else if (r.reason instanceof FencedError) {
      env.lose(o, r.reason.message);
    } else if (env.isolating && isDataError(r.reason) && a.entries.length === 1) {
      settles.push(deadLetterRefused(env, o, a, r.reason));
      failure ??= new Error('replaying after a dead-lettered entry');
    } else {
      failure ??= r.reason instanceof Error ? r.reason : new Error(String(r.reason));
    }
  });
  if (plain.length > 0) settles.push(settleTogether(env, plain, reply));
  if (failure) {
    await Promise.allSettled(settles);
    throw failure;
  }
  return { settled: allOrFirstFailure(settles) };
}

/** One snapshot written in this many has its size observed: a JSON serialisation is not free. */
const SNAPSHOT_SAMPLE = 16;
let written = 0;

/** Observes the JSON size of a sample of the snapshots a round wrote (hearth_snapshot_bytes). */
function sampleSnapshotSizes(metrics: Metrics, type: string, batches: ReadonlyArray<[Owned, Applied]>): void {
  for (const [, a] of batches) {
    for (const slot of a.outcome.dirty.values()) {
      if (written++ % SNAPSHOT_SAMPLE !== 0) continue;
      try {
        metrics.snapshotBytes.observe({ type }, Buffer.byteLength(JSON.stringify(slot.state ?? null)));
      } catch {
        // A state JSON cannot hold: its commit was refused already, and says so.
      }
    }
  }
}

/** Waits for every promise, then rejects with the first failure if there was one. */
async function allOrFirstFailure(all: ReadonlyArray<Promise<void>>): Promise<void> {
  const settled = await Promise.allSettled(all);
  const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
  if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
}

/** Acknowledges and replies for a committed batch; forgets the takeover counts of claimed entries. */
async function settlePartition(env: RoundEnv, o: Owned, a: Applied, reply: boolean): Promise<void> {
  const { d } = env;
  // A write-behind flush (reply false) replied at apply time but still owes its dead letters.
  warnRefused(d.log, [o.partition], await o.ops.settle(a.ids, reply ? a.outcome.replies : [], a.dead));
  await forgetAcknowledged(env, o, a.ids);
}

/** Acknowledges and replies for committed batches with no dead letters, all in one script. */
async function settleTogether(env: RoundEnv, parts: ReadonlyArray<[Owned, Applied]>, reply: boolean): Promise<void> {
  const batches = parts.map(([o, a]) => ({
    partition: o.partition,
    ids: a.ids,
    replies: reply ? a.outcome.replies : [],
  }));
  // Committed: a replay would find these entries applied and acknowledge them without a reply,
  // and their askers would wait out their deadline (a 504 whose outcome they cannot know). So
  // what Redis did not take is owed, and sent again before the next read.
  const refused = await env.d.mailbox.settleMany(batches).catch((err: unknown) => {
    env.owe(batches);
    throw err;
  });
  warnRefused(
    env.d.log,
    parts.map(([o]) => o.partition),
    refused,
  );
  await Promise.all(parts.map(([o, a]) => forgetAcknowledged(env, o, a.ids)));
}

/**
 * What the partition kept about entries now acknowledged: their stranded flags and marks, and
 * their takeover counts. The marks of entries set aside go once they are acknowledged with their
 * dead letter (those let through lost theirs before their commit): a mark outliving its entry is
 * never looked at again (the trim prunes it), while one dropped before could let an overtaken
 * entry pass for a redelivery.
 */
async function forgetAcknowledged(env: RoundEnv, o: Owned, ids: readonly string[]): Promise<void> {
  if (o.stranded.size > 0) for (const id of ids) o.stranded.delete(id);
  if (o.strandedMarks.size > 0) await o.ops.unmarkStranded(ids.filter((id) => o.strandedMarks.delete(id)));
  if (o.claimed.size === 0) return;
  const done = ids.filter((id) => o.claimed.delete(id));
  for (const id of done) o.poisonIds.delete(id);
  await o.ops.forgetClaims(done);
}

/**
 * Alone in its batch, this entry is what Postgres refuses: set it aside and answer its asker;
 * the rest (applied on top of its state) is replayed from the pending list.
 */
async function deadLetterRefused(env: RoundEnv, o: Owned, a: Applied, reason: unknown): Promise<void> {
  const { d } = env;
  const message = reason instanceof Error ? reason.message : String(reason);
  const dead = a.entries.map((entry) => ({ entry, error: `refused by PostgreSQL: ${message}` }));
  d.metrics.deadLettered.inc({ type: d.def.type }, dead.length);
  d.log.error({ partition: o.partition, msgId: a.entries[0]?.id, err: message }, 'message dead-lettered');
  const replies = dead.filter((p) => p.entry.reply).map(failedReply);
  warnRefused(d.log, [o.partition], await o.ops.settle(a.ids, replies, dead));
  await forgetAcknowledged(env, o, a.ids);
}

/** Replies Redis refused cannot be sent again (their entries are acknowledged): say so. */
export function warnRefused(log: Logger, partitions: readonly number[], refused: number): void {
  if (refused > 0) log.warn({ partitions, refused }, 'Redis refused replies (a reply stream key of another type?)');
}
