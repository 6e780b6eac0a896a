import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { GroupCommitter } from '../../store/group-committer.js';
import type { SnapshotStore } from '../../store/snapshot-store.js';
import { ownerOf } from './assignment.js';
import { Backoff, sleep } from './backoff.js';
import type { Keys } from './keys.js';
import { Leases } from './leases.js';
import { PartitionWorker, type PartitionOptions } from './partition-worker.js';
import type { ActorDefinition } from './types.js';

export interface RuntimeOptions extends PartitionOptions {
  /** Default partitions per type. */
  partitions: number;
  /** Lease lifetime, ms; leases and membership are renewed every third of it. */
  leaseTtlMs: number;
}

export interface RuntimeDeps {
  workerId: string;
  redis: Redis;
  /** Makes a fresh connection for a partition's blocking reads. */
  connect: (name: string) => Redis;
  store: SnapshotStore;
  keys: Keys;
  log: Logger;
  metrics: Metrics;
  actors: readonly ActorDefinition[];
  clock?: () => Date;
  options: RuntimeOptions;
}

interface Owned {
  worker: PartitionWorker;
  epoch: number;
}

const slotId = (type: string, partition: number): string => `${type}/${partition}`;

/**
 * The worker role: keeps this process in the membership set, takes the partitions the
 * assignment gives it (lease in Redis, fencing epoch in Postgres), hands back the ones it
 * should no longer own, and runs one {@link PartitionWorker} per owned partition.
 */
export class Runtime {
  private readonly leases: Leases;
  private readonly committer: GroupCommitter;
  private readonly owned = new Map<string, Owned>();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private closed: Promise<void> | undefined;

  constructor(private readonly d: RuntimeDeps) {
    this.leases = new Leases(d.redis, d.keys, d.workerId, d.options.leaseTtlMs);
    this.committer = new GroupCommitter(d.store);
  }

  get workerId(): string {
    return this.d.workerId;
  }

  partitionsOf(type: string): number {
    return this.d.actors.find((a) => a.type === type)?.partitions ?? this.d.options.partitions;
  }

  /** Partitions this worker owns now, as `type/partition`. */
  ownedPartitions(): string[] {
    return [...this.owned.keys()];
  }

  /** Starts the membership loop; resolves after the first reconciliation. */
  async start(): Promise<void> {
    const first = new Promise<void>((resolve) => {
      this.loop = this.run(resolve);
    });
    await first;
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

  /** One tick: heartbeat, then for every partition renew, hand back or take it. */
  private async reconcile(): Promise<void> {
    const members = await this.leases.heartbeat();
    const work: Promise<void>[] = [];
    for (const def of this.d.actors) {
      const partitions = def.partitions ?? this.d.options.partitions;
      for (let p = 0; p < partitions; p++) {
        const mine = ownerOf(def.type, p, members) === this.d.workerId;
        const held = this.owned.get(slotId(def.type, p));
        if (held && mine) work.push(this.renew(def, p));
        else if (held) work.push(this.handBack(def.type, p, 'rebalanced to another worker'));
        else if (mine) work.push(this.take(def, p));
      }
      this.d.metrics.partitionsOwned.set(
        { type: def.type },
        [...this.owned.keys()].filter((k) => k.startsWith(`${def.type}/`)).length,
      );
    }
    await Promise.all(work);
  }

  private async renew(def: ActorDefinition, p: number): Promise<void> {
    if (!(await this.leases.renew(def.type, p))) await this.drop(def.type, p, 'lease lost');
  }

  private async take(def: ActorDefinition, p: number): Promise<void> {
    if (this.abort.signal.aborted || !(await this.leases.acquire(def.type, p))) return;
    const id = slotId(def.type, p);
    try {
      const epoch = await this.d.store.takeFence(def.type, p, this.d.workerId);
      const log = this.d.log.child({ actor: def.type, partition: p, epoch });
      const worker = new PartitionWorker({
        def,
        partition: p,
        epoch,
        workerId: this.d.workerId,
        redis: this.d.redis,
        blocking: this.d.connect(`${this.d.workerId}:${id}`),
        store: this.d.store,
        commit: (batch) => this.committer.commit(batch),
        stream: this.d.keys.mailbox(def.type, p),
        group: this.d.keys.group,
        deadStream: this.d.keys.deadLetter(def.type),
        log,
        metrics: this.d.metrics,
        clock: this.d.clock ?? (() => new Date()),
        options: this.d.options,
        // Free the lease too (a no-op if the new owner holds it), so this worker can take it again.
        onLost: (reason) => void this.handBack(def.type, p, reason).catch(() => undefined),
      });
      this.owned.set(id, { worker, epoch });
      worker.start();
      log.info('partition taken');
    } catch (err) {
      await this.leases.release(def.type, p).catch(() => undefined);
      throw err;
    }
  }

  /** Stops the partition gracefully and frees its lease for the worker it now belongs to. */
  private async handBack(type: string, p: number, reason: string): Promise<void> {
    await this.drop(type, p, reason);
    await this.leases.release(type, p);
  }

  private async drop(type: string, p: number, reason: string): Promise<void> {
    const id = slotId(type, p);
    const held = this.owned.get(id);
    if (!held) return;
    this.owned.delete(id);
    await held.worker.stop();
    this.d.log.info({ actor: type, partition: p, reason }, 'partition released');
  }

  /** Idempotent: stops every partition (finishing batches in hand), frees leases, leaves the group. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.abort.abort();
      await this.loop;
      const results = await Promise.allSettled(
        [...this.owned.keys()].map((id) => {
          const [type = '', p = '0'] = id.split('/');
          return this.handBack(type, Number(p), 'worker closing');
        }),
      );
      await this.leases.leave().catch(() => undefined);
      for (const r of results) {
        if (r.status === 'rejected') this.d.log.warn({ err: String(r.reason) }, 'partition close failed');
      }
    })();
    return this.closed;
  }
}
