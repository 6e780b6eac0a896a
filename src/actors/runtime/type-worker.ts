import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { BatchCommit, Mailbox, OutageSignal, RawEntry, SnapshotStore } from './ports.js';
import { Backoff, sleep, sleepUnlessBack } from './backoff.js';
import { SettleDebt } from './settle-debt.js';
import { MailboxUpkeep } from './mailbox-upkeep.js';
import { readRound, topUpAfter } from './read-top-up.js';
import { applyParts, decodePartition, loadRound, type Applied } from './partition-batch.js';
import { commitRound, commitThenSettle, isDataError, newOwned, type Owned, type RoundEnv } from './round-commit.js';
import { SlotCache } from './slot-cache.js';
import { StallWatch } from './stall-watch.js';
import type { ActorDefinition } from './types.js';
import { WriteBehind } from './write-behind.js';

export interface TypeWorkerOptions {
  /** Entries per partition per read. */
  batch: number;
  /** How long one XREADGROUP blocks, ms. */
  blockMs: number;
  /** Deliveries before a redelivered entry is dead-lettered. */
  maxDeliveries: number;
  /** Actor states kept in memory per partition (least recently used are dropped). */
  cacheSize: number;
  /** How often processed entries are trimmed from the mailboxes, ms. */
  trimEveryMs: number;
  /** Partition lease lifetime, ms: also how long an entry sits with another consumer before it is taken back. */
  leaseTtlMs: number;
}

export interface TypeWorkerDeps {
  def: ActorDefinition;
  workerId: string;
  /** The type's mailboxes, as this worker reads them. */
  mailbox: Mailbox;
  store: SnapshotStore;
  /** Commits one partition's batch (through the worker's group committer); throws FencedError. */
  commit: (batch: BatchCommit) => Promise<void>;
  log: Logger;
  metrics: Metrics;
  clock: () => Date;
  options: TypeWorkerOptions;
  /** Called when a commit finds a partition fenced by a newer owner (it is already dropped here). */
  onLost: (partition: number, reason: string) => void;
  /** PostgreSQL's watch: the wait after a failed round ends when PostgreSQL is back. */
  database?: OutageSignal | undefined;
}

/** Rounds read one entry at a time after a data error (see {@link TypeWorker.isolating}). */
const ISOLATION_ROUNDS = 50;

/** A stage of the loop that lasts this long is logged as a stall (none should last a lease). */
const STALL_AFTER_MS = 30_000;

/**
 * The single writer of every partition of one actor type that this worker owns. One blocking
 * XREADGROUP reads all of them; each round applies every partition's entries in stream order
 * (per-key order holds, keys run side by side) and commits them all in one statement, then
 * acknowledges and replies. One commit is in flight at a time (group commit): the next round is
 * read once it returns, and holds everything that arrived meanwhile, while the acknowledgements
 * and replies of the committed round are still on their way to Redis. A blocking read that woke
 * on the head of a burst reads the rest at once (see {@link topUpAfter}). Reading and applying
 * further rounds during a commit was measured slower: it split the load into more, smaller
 * commits, and the fixed cost of each round (a Redis read, a PostgreSQL statement and its WAL
 * flush, the wake-ups of three processes) is most of an echo ask's CPU at 64 askers. On failure
 * the worker forgets its in-memory states and re-reads its pending entries; the snapshots'
 * `last_msg_id` turns the replay into exactly-once application.
 */
export class TypeWorker {
  private readonly owned = new Map<number, Owned>();
  private readonly releasing = new Map<number, () => void>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private changed: (() => void) | undefined;
  /** Acknowledgements and replies of committed rounds still on their way. */
  private readonly settling = new Set<Promise<void>>();
  /** Acknowledgements and replies of committed rounds that Redis did not take: sent before the next read. */
  private readonly debt = new SettleDebt();
  /** The write-behind path (for types with that policy). */
  private readonly writeBehind: WriteBehind | undefined;
  private failure: Error | undefined;
  /**
   * Rounds still to read one entry per partition, after a commit that Postgres refused for its
   * data: alone in its batch, the offending entry is found and dead-lettered.
   */
  private isolating = 0;
  private readonly upkeep: MailboxUpkeep;
  /** Entries of the last round read (every partition): whether the worker is under load. */
  private lastRound = 0;

  constructor(private readonly d: TypeWorkerDeps) {
    this.upkeep = new MailboxUpkeep(d.options, d.log);
    const policy = d.def.persistence;
    // A write-behind round applies before the last one's facts are committed: it would load stale ones.
    if ((d.def.facts || d.def.tallied) && policy.mode !== 'commit-before-reply') {
      throw new Error(`actor type ${d.def.type}: facts and tallies need the commit-before-reply policy`);
    }
    this.writeBehind =
      policy.mode === 'write-behind'
        ? new WriteBehind(
            d,
            policy.flushMs,
            (batches) => this.commitAndSettle(batches, false),
            (err) => (this.failure ??= err),
          )
        : undefined;
  }

  get type(): string {
    return this.d.def.type;
  }

  partitions(): number[] {
    return [...this.owned.keys()];
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Starts reading a partition this worker has just taken (fence at `epoch`), whose lease holds
   * until `validUntil` (performance.now() time) unless extended.
   */
  add(partition: number, epoch: number, validUntil: number): void {
    const ops = this.d.mailbox.partition(partition);
    this.owned.set(partition, newOwned(partition, epoch, validUntil, ops, new SlotCache(this.d.options.cacheSize)));
    this.interrupt();
  }

  /** The lease was renewed: keep reading until `validUntil`. */
  extend(partition: number, validUntil: number): void {
    const o = this.owned.get(partition);
    if (o) o.validUntil = Math.max(o.validUntil, validUntil);
  }

  /** Stops reading a partition once its batches in hand are committed (and flushed). */
  remove(partition: number): Promise<void> {
    if (!this.owned.has(partition)) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.releasing.set(partition, resolve));
    this.interrupt();
    return done;
  }

  /** Drops retired actors from memory (at each partition's next round): a new message finds no state. */
  forget(keys: readonly string[]): void {
    for (const o of this.owned.values()) o.cache.retire(keys);
  }

  /** Finishes the rounds in hand (and flushes write-behind state), then stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.d.mailbox.close();
    this.changed?.();
    await this.loop;
  }

  /** Ends a blocking read early, so a change of partitions takes effect at once. */
  private interrupt(): void {
    this.changed?.();
    this.d.mailbox.interrupt();
  }

  private async run(): Promise<void> {
    const backoff = new Backoff();
    // PostgreSQL back: the back-off starts over. A round may still fail once on a connection the
    // outage left dead, and its retry must come in milliseconds, not after the seconds that the
    // outage's own failures had grown the delay to.
    const unwatch = this.d.database?.onChange((down) => down === undefined && backoff.reset());
    const stall = new StallWatch(this.d.log, STALL_AFTER_MS, { actor: this.d.def.type, worker: this.d.workerId });
    await this.d.mailbox.open();
    while (!this.stopping) {
      try {
        stall.enter('release');
        await this.settleReleases();
        if (this.owned.size === 0) {
          stall.enter(undefined);
          await new Promise<void>((resolve) => (this.changed = resolve));
          this.changed = undefined;
          continue;
        }
        stall.enter('prepare');
        await this.prepareNew();
        this.throwIfFailed();
        stall.enter('settle owed');
        await this.debt.pay(this.d.mailbox);
        stall.enter('read');
        const read = await this.read();
        if (read.size > 0) {
          await this.round(read, stall);
          if (this.isolating > 0) this.isolating--;
        }
        stall.enter('flush');
        await this.flushDue(false);
        stall.enter('upkeep');
        await this.upkeep.run(this.owned.values());
        backoff.reset();
      } catch (err) {
        if (this.stopping) break;
        stall.enter('recover');
        await this.recover(err, backoff);
      }
    }
    stall.close();
    unwatch?.();
    await this.drainSettles();
    await this.flushDue(true).catch((err: unknown) => {
      // Unacknowledged entries stay pending; the next owner replays them.
      this.d.log.warn({ err: String(err) }, 'final flush failed');
    });
    for (const resolve of this.releasing.values()) resolve();
  }

  /** After a failure: forget in-memory state everywhere and replay pending entries. */
  private async recover(err: unknown, backoff: Backoff): Promise<void> {
    await this.drainSettles();
    const cause = this.failure ?? err;
    this.failure = undefined;
    // Redis lost the mailboxes (a restart without persistence): make the groups again.
    if (String(cause instanceof Error ? cause.message : cause).includes('NOGROUP')) {
      for (const o of this.owned.values()) o.prepared = false;
    }
    if (isDataError(cause)) this.isolating = ISOLATION_ROUNDS;
    const delay = backoff.next();
    this.d.log.warn({ err: cause instanceof Error ? cause.message : String(cause), retryInMs: delay }, 'round failed');
    for (const o of this.owned.values()) {
      o.cache.clear();
      o.unflushed = [];
      o.cursor = '0';
    }
    // Cut short when PostgreSQL comes back: the asks waiting since should not wait out 5 s.
    await sleepUnlessBack(delay, this.d.database);
  }

  private async settleReleases(): Promise<void> {
    if (this.releasing.size === 0) return;
    await this.drainSettles();
    await this.flushDue(true);
    for (const [p, resolve] of this.releasing) {
      this.owned.delete(p);
      this.releasing.delete(p);
      resolve();
    }
  }

  private async prepareNew(): Promise<void> {
    for (const o of this.owned.values()) if (!o.prepared) await this.upkeep.prepare(o);
  }

  private async read(): Promise<Map<Owned, RawEntry[]>> {
    // Never read a partition whose lease may have lapsed: a newer owner may have claimed its
    // pending entries, and what this worker read now would sit in its own pending list, unseen.
    const now = performance.now();
    const parts = [...this.owned.values()].filter((o) => !o.lost && o.validUntil - now > 5);
    if (parts.length === 0) {
      await sleep(Math.min(this.d.options.blockMs, 100));
      return new Map();
    }
    const leaseLeft = Math.min(...parts.map((o) => o.validUntil - now));
    const cursors = parts.map((o) => ({ partition: o.partition, cursor: o.cursor }));
    const count = this.isolating > 0 ? 1 : this.d.options.batch;
    const { byPartition, got } = await readRound(
      (block) => this.d.mailbox.read(cursors, count, block),
      Math.max(1, Math.floor(Math.min(this.blockFor(), leaseLeft))),
      (n, streams) => this.mayReadAgain(parts) && topUpAfter(this.lastRound, n, streams, count),
    );
    this.lastRound = got;
    const out = new Map<Owned, RawEntry[]>();
    for (const o of parts) {
      const raw = byPartition.get(o.partition) ?? [];
      if (o.cursor !== '>') o.cursor = raw.length === 0 ? '>' : raw[raw.length - 1]![0];
      if (raw.length > 0) out.set(o, raw);
    }
    return out;
  }

  /**
   * Whether a second read may follow: only for new entries (a pending history is read in full
   * anyway), never while isolating (one entry per round), never past the lease (the first read
   * may have blocked most of it), and not once a partition is being given up or lost (a failed
   * renewal asks for its release).
   */
  private mayReadAgain(parts: readonly Owned[]): boolean {
    return (
      this.isolating === 0 &&
      this.releasing.size === 0 &&
      parts.every((o) => !o.lost && o.cursor === '>') &&
      Math.min(...parts.map((o) => o.validUntil)) - performance.now() > 5
    );
  }

  private blockFor(): number {
    return this.writeBehind?.blockFor(this.owned.values(), this.d.options.blockMs) ?? this.d.options.blockMs;
  }

  /** Applies every partition's entries, then commits (or, write-behind, replies and holds). */
  private async round(read: Map<Owned, RawEntry[]>, stall: StallWatch): Promise<void> {
    const now = this.d.clock();
    const parts = [...read].map(([o, raw]) => ({ o, cache: o.cache, decoded: decodePartition(o.cache, raw) }));
    // While isolating an entry PostgreSQL refused, write-behind commits round by round too: a
    // flush would merge the one-entry rounds again and never single the entry out.
    if (this.d.def.persistence.mode === 'commit-before-reply' || this.isolating > 0) {
      stall.enter('load');
      await loadRound(this.d, parts);
      stall.enter('apply');
      const applied = await applyParts(this.d, parts, now);
      stall.enter('commit');
      await this.commitThenSettleLater(applied);
      return;
    }
    stall.enter('apply');
    await this.writeBehind?.applyRound(parts, now);
  }

  /**
   * Commits a round, then leaves its acknowledgements and replies on their way: they are queued
   * in order on one Redis connection, ahead of anything the next round sends. A failed settle
   * fails the next round (which replays the pending entries; the committed ones are skipped).
   */
  private async commitThenSettleLater(applied: Array<[Owned, Applied]>): Promise<void> {
    this.throwIfFailed();
    const { settled } = await commitThenSettle(this.roundEnv(), applied, true);
    const tracked = settled.catch((err: unknown) => {
      this.failure ??= err instanceof Error ? err : new Error(String(err));
    });
    this.settling.add(tracked);
    void tracked.finally(() => this.settling.delete(tracked));
  }

  /** Commits a round's partition batches together (one statement via the group committer). */
  private commitAndSettle(batches: Array<[Owned, Applied]>, reply: boolean): Promise<void> {
    this.throwIfFailed();
    return commitRound(this.roundEnv(), batches, reply);
  }

  private roundEnv(): RoundEnv {
    return {
      d: this.d,
      isolating: this.isolating > 0,
      lose: (o, why) => this.lose(o, why),
      owe: (batches) => this.debt.owe(batches),
    };
  }

  /** A newer owner holds the partition: drop it without acknowledging anything more. */
  private lose(o: Owned, reason: string): void {
    if (o.lost) return;
    o.lost = true;
    this.owned.delete(o.partition);
    this.releasing.get(o.partition)?.();
    this.releasing.delete(o.partition);
    this.d.log.warn({ partition: o.partition, err: reason }, 'partition taken over by a newer owner; dropping it');
    this.d.onLost(o.partition, reason);
  }

  /** Write-behind: commits what is due (all of it when forced); see {@link WriteBehind}. */
  private async flushDue(force: boolean): Promise<void> {
    await this.writeBehind?.flushDue(this.owned.values(), force);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private async drainSettles(): Promise<void> {
    await Promise.all(this.settling);
    await this.writeBehind?.idle();
  }
}
