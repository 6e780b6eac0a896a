import { FencedError, fenceKey, type BatchCommit, type SnapshotStore } from './snapshot-store.js';

interface Waiting {
  batch: BatchCommit;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit across partitions: batches that arrive while a commit is in flight wait and go
 * together in the next one, so a worker with many busy partitions pays one Postgres round trip
 * (and one WAL flush) for all of them instead of one each.
 */
export class GroupCommitter {
  private queue: Waiting[] = [];
  private running = 0;
  /** A drain is due at the end of this tick (see {@link commit}). */
  private scheduled = false;

  constructor(
    private readonly store: SnapshotStore,
    /** Commits in flight at once. */
    private readonly concurrency = 2,
    /** Batches per commit at most. */
    private readonly maxBatches = 64,
  ) {}

  commit(batch: BatchCommit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      // The drain starts after the current tick, not at once: a round hands in its partitions'
      // batches one call after another, and a drain started by the first call would take that
      // one alone (then a second drain the next one alone, the rest waiting for both). One
      // statement per round instead of three cut PostgreSQL's CPU per echo ask by a quarter.
      if (this.scheduled || this.running >= this.concurrency) return;
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        void this.drain();
      });
    });
  }

  private async commitGroup(group: Waiting[]): Promise<void> {
    try {
      const held = await this.store.commitMany(group.map((g) => g.batch));
      for (const g of group) {
        if (held.has(fenceKey(g.batch.type, g.batch.partition))) g.resolve();
        else
          g.reject(
            new FencedError(
              `partition ${g.batch.type}/${g.batch.partition} is no longer fenced at epoch ${g.batch.epoch}`,
            ),
          );
      }
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      // One bad batch (a guard, a value Postgres refuses) must not fail its neighbours: commit
      // them one by one, so each gets its own outcome.
      for (const g of group) await this.commitGroup([g]);
    }
  }

  private async drain(): Promise<void> {
    this.running++;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxBatches);
        await this.commitGroup(group);
      }
    } finally {
      this.running--;
    }
  }
}
