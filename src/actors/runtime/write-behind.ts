import {
  applyParts,
  loadMissing,
  mergeApplied,
  splitByCached,
  type Applied,
  type BatchDeps,
  type Decoded,
} from './partition-batch.js';
import type { Mailbox } from './ports.js';
import { warnRefused, type Owned } from './round-commit.js';
import type { SlotCache } from './slot-cache.js';

/**
 * The write-behind half of a type worker: rounds are replied to at once and held per partition;
 * what a partition has held for `flushMs` is committed beside the reads, one flush at a time (so
 * a key's states reach Postgres in order). The held entries are acknowledged only by the flush:
 * a crash before it replays them from the pending list.
 */
export class WriteBehind {
  /** The flush commit in flight, if any. */
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly d: BatchDeps & { mailbox: Mailbox; workerId: string },
    private readonly flushMs: number,
    /** Commits (and acknowledges, without replying again) each partition's merged rounds. */
    private readonly commit: (batches: Array<[Owned, Applied]>) => Promise<void>,
    /** A background flush failed: the worker replays from its pending entries. */
    private readonly fail: (err: Error) => void,
  ) {}

  /**
   * Applies a round and replies at once, holding it for the flush. The entries whose states are
   * in memory are answered while the states of the round's new keys load (their entries follow):
   * a new USSD session in a round no longer holds up the hops of every session already under way
   * by a PostgreSQL round trip. Keys are independent, and each key's entries stay together, in
   * order, on one side.
   */
  async applyRound(parts: ReadonlyArray<{ o: Owned; cache: SlotCache; decoded: Decoded }>, now: Date): Promise<void> {
    const loading = loadMissing(this.d, parts).then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
    const sides = parts.map(({ o, decoded }) => ({ o, ...splitByCached(decoded) }));
    try {
      await this.applyAndReply(
        sides.map(({ o, cached }) => ({ o, decoded: cached })),
        now,
      );
    } catch (err) {
      // The load lands in the cache: after the recovery it would overwrite the replay's newer
      // state of the same key with the old snapshot. A round never ends with its load in flight.
      await loading;
      throw err;
    }
    const failed = await loading;
    if (failed) throw failed;
    await this.applyAndReply(
      sides.filter(({ loaded }) => loaded.entries.length > 0).map(({ o, loaded }) => ({ o, decoded: loaded })),
      now,
    );
  }

  /**
   * Applies, holds for the flush, and replies at once. Replies (a dead-lettered entry's failure
   * included) leave now; the dead letters themselves go with the flush's acknowledgement, in one
   * MULTI, so a crash before it neither loses one nor writes one twice (the replay dead-letters
   * the entry again, and only that one lands).
   */
  private async applyAndReply(parts: ReadonlyArray<{ o: Owned; decoded: Decoded }>, now: Date): Promise<void> {
    const applied = await applyParts(this.d, parts, now);
    for (const [o, a] of applied) this.hold(o, a);
    // Every partition's replies in one script: nothing is acknowledged before the flush.
    const refused = await this.d.mailbox.settleMany(
      applied.map(([o, a]) => ({ partition: o.partition, ids: [], replies: a.outcome.replies })),
    );
    warnRefused(
      this.d.log,
      applied.map(([o]) => o.partition),
      refused,
    );
  }

  /** Holds a round of a partition until its flush. */
  private hold(o: Owned, a: Applied): void {
    if (o.unflushed.length === 0) o.unflushedSince = Date.now();
    o.unflushed.push(a);
  }

  /** How long the next read may block: no longer than the oldest held round's flush is due. */
  blockFor(owned: Iterable<Owned>, blockMs: number): number {
    const held = [...owned].filter((o) => o.unflushed.length > 0).map((o) => o.unflushedSince);
    if (held.length === 0) return blockMs;
    return Math.max(1, Math.min(blockMs, Math.min(...held) + this.flushMs - Date.now()));
  }

  /**
   * Commits what each partition has held for `flushMs` (all of it when forced). An unforced
   * flush runs in the background; a forced one waits for the one in flight, then for its own.
   */
  async flushDue(owned: Iterable<Owned>, force: boolean): Promise<void> {
    if (this.flushing) {
      if (!force) return;
      await this.flushing;
    }
    const due = [...owned].filter(
      (o) => o.unflushed.length > 0 && (force || Date.now() - o.unflushedSince >= this.flushMs),
    );
    if (due.length === 0) return;
    // One commit per partition: two batches of a partition cannot share a statement (same keys).
    const rounds = due.map((o) => [o, o.unflushed] as const);
    const batches = rounds.map(([o, held]): [Owned, Applied] => [o, mergeApplied(held)]);
    for (const o of due) o.unflushed = [];
    const run = this.commit(batches).then(() => {
      // Each round pinned its states once; newer rounds applied meanwhile keep theirs.
      for (const [o, held] of rounds) for (const a of held) o.cache.unpin(a.outcome.dirty.keys());
    });
    if (force) return run;
    this.flushing = run
      .catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))))
      .finally(() => {
        this.flushing = undefined;
      });
  }

  /** Resolves when no flush is in flight. */
  async idle(): Promise<void> {
    await this.flushing;
  }
}
