import type { Logger } from '../../log.js';
import { sleep } from './backoff.js';
import type { SnapshotStore } from './ports.js';
import type { ActorDefinition } from './types.js';

export interface IdleRetirerDeps {
  store: SnapshotStore;
  log: Logger;
  clock: () => Date;
  /** The types with a retention policy. */
  actors: readonly ActorDefinition[];
  /** Default partitions per type. */
  partitions: number;
  /** The partitions of a type this worker owns now, with their epochs. */
  owned: (type: string) => ReadonlyMap<number, number>;
  /** Drops retired actors from the owner's memory, so a new message finds no state. */
  forget: (type: string, keys: readonly string[]) => void;
  /** Between sweeps, ms. */
  everyMs: number;
  /** Snapshots retired per statement at most (a sweep runs statements until fewer come back). */
  batch: number;
  /** Retired actors, per type (a counter). */
  onRetired?: (type: string, n: number) => void;
}

/**
 * Retires idle actors of the types that have a RetentionPolicy (types.ts): each worker, for the
 * partitions it owns, deletes snapshots not written for the policy's `idleMs`, through its fence
 * (the store deletes only where the owner's epoch still holds), and forgets them in memory. No
 * product deletes runtime rows itself.
 */
export class IdleRetirer {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly d: IdleRetirerDeps) {}

  start(): void {
    if (this.d.actors.some((a) => a.retention)) this.loop ??= this.run();
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  /** One sweep over every type with a policy; returns how many actors were retired. */
  async sweep(): Promise<number> {
    let total = 0;
    for (const def of this.d.actors) {
      if (!def.retention) continue;
      const owned = this.d.owned(def.type);
      if (owned.size === 0) continue;
      const idleBefore = new Date(this.d.clock().getTime() - def.retention.idleMs);
      for (;;) {
        const keys = await this.d.store.retireIdle({
          type: def.type,
          partitions: def.partitions ?? this.d.partitions,
          owned,
          idleBefore,
          limit: this.d.batch,
          ...(def.view ? { viewTable: def.view.table } : {}),
        });
        if (keys.length > 0) {
          this.d.forget(def.type, keys);
          this.d.onRetired?.(def.type, keys.length);
        }
        total += keys.length;
        if (keys.length < this.d.batch || this.abort.signal.aborted) break;
      }
    }
    return total;
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      await sleep(this.d.everyMs, this.abort.signal);
      if (this.abort.signal.aborted) break;
      try {
        const n = await this.sweep();
        if (n > 0) this.d.log.info({ retired: n }, 'idle actors retired');
      } catch (err) {
        // The next sweep tries again; nothing is half done (each statement is its own transaction).
        this.d.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'retiring idle actors failed');
      }
    }
  }
}
