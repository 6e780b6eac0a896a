import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { GroupCommitter, type CommitLane } from './group-committer.js';
import type { BatchCommit, LeaseTable, Mailbox, OutageSignal, SnapshotStore } from './ports.js';
import { ownerOf } from './assignment.js';
import { Backoff, sleep } from './backoff.js';
import { IdleRetirer } from './idle-retirer.js';
import { checkReadModel } from './read-model.js';
import { TypeWorker, type TypeWorkerOptions } from './type-worker.js';
import type { ActorDefinition } from './types.js';

export interface RuntimeOptions extends TypeWorkerOptions {
  /** Default partitions per type. */
  partitions: number;
  /** Lease lifetime, ms; leases and membership are renewed every third of it. */
  leaseTtlMs: number;
  /** Between sweeps for idle actors of types with a retention policy, ms (default 10 minutes). */
  retireEveryMs?: number;
}

export interface RuntimeDeps {
  workerId: string;
  /** This worker's mailbox of one actor type's partitions (Redis streams, or memory in tests). */
  mailboxOf: (type: string) => Mailbox;
  /** Membership of live workers and the partitions' leases, for this worker and its types. */
  leases: LeaseTable;
  store: SnapshotStore;
  /**
   * Stores for the group commit, one per commit in flight, each on a connection of its own (see
   * GroupCommitter). Default: two lanes through `store`.
   */
  commitLanes?: readonly CommitLane[];
  log: Logger;
  metrics: Metrics;
  actors: readonly ActorDefinition[];
  clock?: () => Date;
  options: RuntimeOptions;
  /** PostgreSQL's watch: a round that failed while it was down is retried as soon as it is back. */
  database?: OutageSignal;
  /** Called after each batch that committed (the outbox relay is poked when it wrote tells). */
  onCommitted?: (batch: BatchCommit) => void;
}

const slotId = (type: string, partition: number): string => `${type}/${partition}`;

/**
 * The worker role: keeps this process in the membership set, takes the partitions the
 * assignment gives it (a lease in the lease table, a fencing epoch in the store), hands back the ones it
 * should no longer own, and runs one {@link TypeWorker} per actor type over its partitions.
 */
export class Runtime {
  private readonly leases: LeaseTable;
  private readonly retirer: IdleRetirer;
  private readonly workers = new Map<string, TypeWorker>();
  /** `type/partition` → epoch, for the partitions this worker holds. */
  private readonly owned = new Map<string, number>();
  private readonly handingBack = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private closed: Promise<void> | undefined;

  constructor(private readonly d: RuntimeDeps) {
    this.leases = d.leases;
    const committer = new GroupCommitter(d.commitLanes ?? [d.store, d.store]);
    this.retirer = new IdleRetirer({
      store: d.store,
      log: d.log,
      clock: d.clock ?? (() => new Date()),
      actors: d.actors,
      partitions: d.options.partitions,
      owned: (type) => this.ownedOf(type),
      forget: (type, keys) => this.workers.get(type)?.forget(keys),
      everyMs: d.options.retireEveryMs ?? 10 * 60_000,
      batch: 5_000,
      onRetired: (type, n) => d.metrics.actorsRetired.inc({ type }, n),
    });
    for (const def of d.actors) {
      if (def.view) checkReadModel(def.type, def.view);
      this.workers.set(
        def.type,
        new TypeWorker({
          def,
          workerId: d.workerId,
          mailbox: d.mailboxOf(def.type),
          store: d.store,
          commit: (batch) => {
            const committed = committer.commit(batch);
            const after = d.onCommitted;
            return after ? committed.then(() => after(batch)) : committed;
          },
          log: d.log.child({ actor: def.type }),
          metrics: d.metrics,
          clock: d.clock ?? (() => new Date()),
          options: d.options,
          database: d.database,
          // Free the lease too (a no-op if the new owner holds it), so this worker can take it again.
          onLost: (p, reason) => {
            this.owned.delete(slotId(def.type, p));
            this.d.log.info({ actor: def.type, partition: p, reason }, 'partition released');
            void this.leases
              .release(def.type, p)
              .catch((err: unknown) =>
                this.d.log.warn({ actor: def.type, partition: p, err: String(err) }, 'lease release failed'),
              );
          },
        }),
      );
    }
  }

  get workerId(): string {
    return this.d.workerId;
  }

  /** Partitions this worker owns now, as `type/partition`. */
  ownedPartitions(): string[] {
    return [...this.owned.keys()];
  }

  /** The partitions of a type this worker owns now, with their epochs. */
  private ownedOf(type: string): Map<number, number> {
    const owned = new Map<number, number>();
    for (const [id, epoch] of this.owned) {
      const slash = id.lastIndexOf('/');
      if (id.slice(0, slash) === type) owned.set(Number(id.slice(slash + 1)), epoch);
    }
    return owned;
  }

  /** Retires idle actors now (what the periodic sweep does); returns how many. */
  retireIdle(): Promise<number> {
    return this.retirer.sweep();
  }

  /** Starts the type workers and the membership loop; resolves after the first reconciliation. */
  async start(): Promise<void> {
    for (const w of this.workers.values()) w.start();
    this.retirer.start();
    await new Promise<void>((resolve) => {
      this.loop = this.run(resolve);
    });
  }

  private async run(firstDone: () => void): Promise<void> {
    const backoff = new Backoff(100, this.d.options.leaseTtlMs / 3);
    while (!this.abort.signal.aborted) {
      try {
        await this.reconcile();
        backoff.reset();
        firstDone();
        await sleep(this.d.options.leaseTtlMs / 3, this.abort.signal);
      } catch (err) {
        firstDone();
        const delay = backoff.next();
        this.d.log.warn(
          { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
          'membership tick failed',
        );
        await sleep(delay, this.abort.signal);
      }
    }
  }

  /** The partitions this worker reads now, per actor type (its metrics describe only these). */
  readPartitions(): Array<{ type: string; partition: number }> {
    return [...this.workers].flatMap(([type, w]) => w.partitions().map((partition) => ({ type, partition })));
  }

  /** One tick: heartbeat, then for every partition renew, hand back or take it. */
  private async reconcile(): Promise<void> {
    const membersOf = await this.leases.heartbeat();
    const work: Promise<void>[] = [];
    const taken = new Map<string, number[]>();
    for (const def of this.d.actors) {
      const partitions = def.partitions ?? this.d.options.partitions;
      // Dealt over the workers that run this type, not all workers: one without it would hold
      // its share of the partitions and never read them.
      const members = membersOf.get(def.type) ?? [];
      for (let p = 0; p < partitions; p++) {
        const mine = ownerOf(def.type, p, members) === this.d.workerId;
        const held = this.owned.has(slotId(def.type, p));
        if (held && mine) {
          // A lease lost while still this worker's by the deal (it lapsed, or a Redis failover
          // lost its last renewal) is taken again at once: until then its asks wait unread.
          work.push(
            this.renew(def.type, p).then(async (kept) => {
              if (!kept && (await this.take(def.type, p))) taken.set(def.type, [...(taken.get(def.type) ?? []), p]);
            }),
          );
        } else if (held) this.handBackInBackground(def.type, p);
        else if (mine) {
          work.push(
            this.take(def.type, p).then((took) => {
              if (took) taken.set(def.type, [...(taken.get(def.type) ?? []), p]);
            }),
          );
        }
      }
    }
    const done = await Promise.allSettled(work);
    // One line per type at info (a worker starting takes 16 partitions of each of 6 types: 96
    // lines were most of its log); each partition's own line, with its epoch, at debug.
    for (const [type, partitions] of taken) {
      this.d.log.info({ actor: type, partitions: partitions.sort((a, b) => a - b) }, 'partitions taken');
    }
    const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    for (const def of this.d.actors) {
      this.d.metrics.partitionsOwned.set({ type: def.type }, this.workers.get(def.type)?.partitions().length ?? 0);
    }
  }

  /**
   * Until when a lease set or renewed by a command sent at `sentAt` surely holds: its TTL runs
   * from when Redis applied it (after `sentAt`), less a margin for the two clocks' rates.
   */
  private validFrom(sentAt: number): number {
    return sentAt + this.d.options.leaseTtlMs * 0.9;
  }

  /** Whether the lease still held; a lost one's partition is dropped. */
  private async renew(type: string, p: number): Promise<boolean> {
    const sentAt = performance.now();
    if (await this.leases.renew(type, p)) {
      this.workers.get(type)?.extend(p, this.validFrom(sentAt));
      return true;
    }
    this.owned.delete(slotId(type, p));
    await this.workers.get(type)?.remove(p);
    this.d.log.warn({ actor: type, partition: p }, 'lease lost; partition dropped');
    return false;
  }

  /** Takes a partition whose lease is free; whether it did. */
  private async take(type: string, p: number): Promise<boolean> {
    const sentAt = performance.now();
    if (this.abort.signal.aborted || !(await this.leases.acquire(type, p))) return false;
    try {
      const epoch = await this.d.store.takeFence(type, p, this.d.workerId);
      this.owned.set(slotId(type, p), epoch);
      this.workers.get(type)?.add(p, epoch, this.validFrom(sentAt));
      this.d.log.debug({ actor: type, partition: p, epoch }, 'partition taken');
      return true;
    } catch (err) {
      // The lease lapses by itself; the error thrown on is the one the membership loop logs.
      await this.leases.release(type, p).catch(() => undefined);
      throw err;
    }
  }

  /**
   * A hand-over may wait on a flush (write-behind) while Postgres is down; the tick must not wait
   * with it, or the renewals of every other partition would stop too.
   */
  private handBackInBackground(type: string, p: number): void {
    const id = slotId(type, p);
    if (this.handingBack.has(id)) return;
    const done = this.handBack(type, p, 'rebalanced to another worker')
      .catch((err: unknown) => this.d.log.warn({ actor: type, partition: p, err: String(err) }, 'hand-over failed'))
      .finally(() => this.handingBack.delete(id));
    this.handingBack.set(id, done);
  }

  /** Stops the partition gracefully and frees its lease for the worker it now belongs to. */
  private async handBack(type: string, p: number, reason: string): Promise<void> {
    this.owned.delete(slotId(type, p));
    await this.workers.get(type)?.remove(p);
    await this.leases.release(type, p);
    this.d.log.info({ actor: type, partition: p, reason }, 'partition released');
  }

  /** Idempotent: stops every type worker (finishing rounds in hand), frees leases, leaves the group. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.abort.abort();
      await this.loop;
      await this.retirer.close();
      await Promise.all(this.handingBack.values());
      await Promise.allSettled([...this.workers.values()].map((w) => w.stop()));
      const results = await Promise.allSettled(
        [...this.owned.keys()].map((id) => {
          const [type = '', p = '0'] = id.split('/');
          this.owned.delete(id);
          this.d.log.info({ actor: type, partition: Number(p), reason: 'worker closing' }, 'partition released');
          return this.leases.release(type, Number(p));
        }),
      );
      // Best effort: a worker that did not leave drops out of the sets one lease TTL after its last
      // heartbeat (the others' heartbeats prune it).
      await this.leases.leave().catch(() => undefined);
      for (const r of results) {
        if (r.status === 'rejected') this.d.log.warn({ err: String(r.reason) }, 'lease release failed');
      }
    })();
    return this.closed;
  }
}
