import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { FencedError, type BatchCommit, type SnapshotStore } from '../../store/snapshot-store.js';
import {
  applyBatch,
  emptySlot,
  type BatchOutcome,
  type OutboxRow,
  type OutgoingReply,
  type PoisonMessage,
  type Slot,
} from './apply-batch.js';
import { Backoff, sleep } from './backoff.js';
import { decodeEntry, type MailboxEntry } from './entry-codec.js';
import { MailboxOps } from './mailbox-ops.js';
import { SlotCache } from './slot-cache.js';
import type { ActorDefinition } from './types.js';

export interface PartitionOptions {
  /** Entries per read. */
  batch: number;
  /** How long one XREADGROUP blocks, ms. */
  blockMs: number;
  /** Deliveries before a redelivered entry is dead-lettered. */
  maxDeliveries: number;
  /** Actor states kept in memory per partition (least recently used are dropped). */
  cacheSize: number;
  /** How often processed entries are trimmed from the mailbox, ms. */
  trimEveryMs: number;
}

export interface PartitionDeps {
  def: ActorDefinition;
  partition: number;
  epoch: number;
  workerId: string;
  redis: Redis;
  /** A connection of its own: XREADGROUP BLOCK holds it. */
  blocking: Redis;
  store: SnapshotStore;
  /** Commits a batch (through the worker's group committer); throws FencedError when fenced. */
  commit: (batch: BatchCommit) => Promise<void>;
  stream: string;
  group: string;
  deadStream: string;
  log: Logger;
  metrics: Metrics;
  clock: () => Date;
  options: PartitionOptions;
  /** Called once when a commit finds the partition fenced by a newer owner. */
  onLost: (reason: string) => void;
}

function failedReply(p: PoisonMessage): OutgoingReply {
  const body = { code: 'ACTOR_FAILED', message: 'the actor could not process this message; it was dead-lettered' };
  return { stream: p.entry.reply, corr: p.entry.corr, ok: false, body: JSON.stringify(body) };
}

/** A batch read and applied, waiting for its commit. */
interface Applied {
  ids: string[];
  outcome: BatchOutcome;
  dead: PoisonMessage[];
}

/** Batches applied ahead of their commit (one committing, one forming behind it). */
const MAX_AHEAD = 2;

interface Unflushed {
  dirty: Map<string, Slot>;
  /** Every key each batch pinned (a key once per batch), to unpin after the flush. */
  pinned: string[];
  outbox: OutboxRow[];
  ids: string[];
  since: number;
}

/**
 * The single writer of one partition: reads its mailbox in batches, applies each batch in
 * stream order, commits snapshots and outbox rows in one transaction, then acknowledges and
 * replies. Commits are pipelined: while batch k commits, batch k+1 is read and applied on top
 * of k's (pinned, uncommitted) states, and commits only after k. On any failure the worker
 * forgets its in-memory state and re-reads its own pending entries, which the snapshots'
 * `last_msg_id` turns into exactly-once application.
 */
export class PartitionWorker {
  private readonly ops: MailboxOps;
  private readonly cache: SlotCache;
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** The chain of commits in flight, oldest first; each entry never rejects. */
  private ahead: Array<Promise<void>> = [];
  private tail: Promise<void> = Promise.resolve();
  /** The first failure in the commit chain; later batches are not committed on top of it. */
  private failure: Error | undefined;
  private unflushed: Unflushed | undefined;
  private lastTrim = 0;

  constructor(private readonly d: PartitionDeps) {
    this.ops = new MailboxOps(d.redis, d.stream, d.group, d.workerId);
    this.cache = new SlotCache(d.options.cacheSize);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the batches in hand (and flushes write-behind state), then stops reading. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.d.blocking.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff();
    let cursor = '0';
    let prepared = false;
    while (!this.stopping) {
      try {
        if (!prepared) {
          await this.d.blocking.connect().catch(() => undefined);
          await this.ops.ensureGroup();
          const claimed = await this.ops.claimAll();
          await this.ops.dropIdleConsumers();
          if (claimed > 0) this.d.log.info({ claimed }, 'claimed pending entries of earlier owners');
          prepared = true;
        }
        this.throwIfFailed();
        const raw = await this.ops.read(this.d.blocking, cursor, this.d.options.batch, this.blockFor());
        if (cursor !== '>') {
          if (raw.length === 0) {
            await this.drainAhead();
            this.throwIfFailed();
            cursor = '>';
            continue;
          }
          cursor = raw[raw.length - 1]![0];
        }
        if (raw.length > 0) await this.handle(raw, cursor !== '>');
        await this.maybeFlush(false);
        await this.maybeTrim();
        backoff.reset();
      } catch (err) {
        await this.drainAhead();
        const cause = this.failure ?? err;
        this.failure = undefined;
        if (cause instanceof FencedError) {
          this.d.log.warn({ err: cause.message }, 'partition taken over by a newer owner; stopping');
          this.stopping = true;
          this.d.onLost(cause.message);
          break;
        }
        if (this.stopping) break;
        const delay = backoff.next();
        this.d.log.warn(
          { err: cause instanceof Error ? cause.message : String(cause), retryInMs: delay },
          'partition batch failed',
        );
        // What is in memory may be ahead of Postgres: forget it and replay the pending entries.
        this.cache.clear();
        this.unflushed = undefined;
        cursor = '0';
        await sleep(delay);
      }
    }
    await this.drainAhead();
    await this.finalFlush();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private async drainAhead(): Promise<void> {
    await Promise.all(this.ahead);
    this.ahead = [];
  }

  private blockFor(): number {
    const u = this.unflushed;
    const policy = this.d.def.persistence;
    if (!u || policy.mode !== 'write-behind') return this.d.options.blockMs;
    return Math.max(1, Math.min(this.d.options.blockMs, u.since + policy.flushMs - Date.now()));
  }

  private async handle(raw: Array<[string, string[] | null]>, redelivery: boolean): Promise<void> {
    const applied = await this.apply(raw, redelivery);
    if (this.d.def.persistence.mode === 'commit-before-reply') {
      this.commitInOrder(applied);
      while (this.ahead.length >= MAX_AHEAD) await this.ahead.shift();
      this.throwIfFailed();
      return;
    }
    const { ids, outcome, dead } = applied;
    const fresh: Unflushed = { dirty: new Map(), pinned: [], outbox: [], ids: [], since: Date.now() };
    const u = (this.unflushed ??= fresh);
    for (const [k, s] of outcome.dirty) {
      u.dirty.set(k, s);
      u.pinned.push(k);
    }
    u.outbox.push(...outcome.outbox);
    u.ids.push(...ids);
    await this.ops.settle([], outcome.replies, dead, this.d.deadStream, this.d.workerId);
  }

  /** Decodes, sets aside poison, loads missing states and applies the batch (states pinned). */
  private async apply(raw: Array<[string, string[] | null]>, redelivery: boolean): Promise<Applied> {
    const entries: MailboxEntry[] = [];
    const deletedIds: string[] = [];
    for (const [id, fields] of raw) {
      const e = decodeEntry(id, fields);
      if (e) entries.push(e);
      else deletedIds.push(id);
    }
    const poisoned = redelivery ? await this.overDelivered(entries) : [];
    const live = poisoned.length ? entries.filter((e) => !poisoned.some((p) => p.entry === e)) : entries;

    await this.loadMissing(live);
    const outcome = applyBatch(this.d.def, live, this.cache.view, this.d.clock());
    this.cache.adoptPinned(outcome.dirty);
    const dead = [...poisoned, ...outcome.poison];
    outcome.replies.push(...dead.filter((p) => p.entry.reply).map(failedReply));
    this.countDead(dead);
    if (outcome.duplicates > 0) this.d.metrics.redeliveriesSkipped.inc({ type: this.d.def.type }, outcome.duplicates);
    return { ids: [...deletedIds, ...entries.map((e) => e.id)], outcome, dead };
  }

  /** Commits after every earlier batch, then acknowledges and replies; skipped after a failure. */
  private commitInOrder({ ids, outcome, dead }: Applied): void {
    const type = this.d.def.type;
    this.tail = this.tail
      .then(async () => {
        this.throwIfFailed();
        const started = performance.now();
        await this.d.commit({
          type,
          partition: this.d.partition,
          epoch: this.d.epoch,
          dirty: outcome.dirty,
          outbox: outcome.outbox,
        });
        this.d.metrics.commitDuration.observe({ type }, (performance.now() - started) / 1000);
        this.d.metrics.commitBatchSize.observe({ type }, ids.length);
        this.cache.unpin(outcome.dirty.keys());
        await this.ops.settle(ids, outcome.replies, dead, this.d.deadStream, this.d.workerId);
      })
      .catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      });
    this.ahead.push(this.tail);
  }

  /** Redelivered entries past MAX_DELIVERIES: they keep killing their worker, so they are set aside. */
  private async overDelivered(entries: MailboxEntry[]): Promise<PoisonMessage[]> {
    if (entries.length === 0) return [];
    const counts = await this.ops.deliveries(entries[0]!.id, entries[entries.length - 1]!.id);
    return entries
      .filter((e) => (counts.get(e.id) ?? 0) > this.d.options.maxDeliveries)
      .map((entry) => ({ entry, error: `delivered ${counts.get(entry.id)} times without being acknowledged` }));
  }

  private countDead(dead: PoisonMessage[]): void {
    if (dead.length === 0) return;
    this.d.metrics.deadLettered.inc({ type: this.d.def.type }, dead.length);
    for (const p of dead) {
      this.d.log.error({ msgId: p.entry.id, key: p.entry.key, err: p.error }, 'message dead-lettered');
    }
  }

  private async loadMissing(entries: MailboxEntry[]): Promise<void> {
    const missing = [...new Set(entries.map((e) => e.key))].filter((k) => !this.cache.has(k));
    if (missing.length === 0) return;
    const loaded = await this.d.store.load(this.d.def.type, missing);
    for (const k of missing) this.cache.set(k, loaded.get(k) ?? emptySlot());
  }

  private async maybeFlush(force: boolean): Promise<void> {
    const u = this.unflushed;
    const policy = this.d.def.persistence;
    if (!u || policy.mode !== 'write-behind') return;
    if (!force && Date.now() - u.since < policy.flushMs) return;
    await this.d.commit({
      type: this.d.def.type,
      partition: this.d.partition,
      epoch: this.d.epoch,
      dirty: u.dirty,
      outbox: u.outbox,
    });
    this.d.metrics.commitBatchSize.observe({ type: this.d.def.type }, u.ids.length);
    this.cache.unpin(u.pinned);
    await this.ops.settle(u.ids, [], [], this.d.deadStream, this.d.workerId);
    this.unflushed = undefined;
  }

  private async finalFlush(): Promise<void> {
    try {
      await this.maybeFlush(true);
    } catch (err) {
      // Unacknowledged entries stay pending; the next owner replays them.
      this.d.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'final flush failed');
    }
  }

  private async maybeTrim(): Promise<void> {
    const now = Date.now();
    if (now - this.lastTrim < this.d.options.trimEveryMs) return;
    this.lastTrim = now;
    await this.ops.trim();
  }
}
