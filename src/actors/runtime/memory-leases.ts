import type { LeaseTable } from './ports.js';

/**
 * Leases and membership in one process, with the semantics of the Redis lease table (a lease is
 * set only when free and lapses unless renewed; a member drops out one TTL after its last
 * heartbeat). Like MemoryMailboxes, one table serves every worker of a test: {@link forWorker}
 * gives one worker's view. For runtime tests with no services; not for deployments.
 */
export class MemoryLeaseTable {
  private readonly leases = new Map<string, { owner: string; until: number }>();
  /** Membership set (all workers, or one type's) → worker → last heartbeat. */
  private readonly members = new Map<string, Map<string, number>>();

  /** `now`: the table's clock, ms. */
  constructor(private readonly now: () => number = Date.now) {}

  forWorker(workerId: string, ttlMs: number, types: readonly string[]): LeaseTable {
    const sets = ['', ...types];
    const leaseId = (type: string, partition: number) => `${type}/${partition}`;
    const held = (type: string, partition: number): boolean => {
      const lease = this.leases.get(leaseId(type, partition));
      return lease !== undefined && lease.owner === workerId && lease.until > this.now();
    };
    return {
      heartbeat: () => {
        const now = this.now();
        const live = sets.map((set) => {
          const m = this.members.get(set) ?? new Map<string, number>();
          this.members.set(set, m);
          m.set(workerId, now);
          for (const [w, seen] of m) if (seen <= now - ttlMs) m.delete(w);
          return [...m.keys()].sort();
        });
        return Promise.resolve(new Map(types.map((t, i) => [t, live[i + 1] ?? []])));
      },
      leave: () => {
        for (const set of sets) this.members.get(set)?.delete(workerId);
        return Promise.resolve();
      },
      acquire: (type, partition) => {
        const lease = this.leases.get(leaseId(type, partition));
        if (lease && lease.until > this.now()) return Promise.resolve(false);
        this.leases.set(leaseId(type, partition), { owner: workerId, until: this.now() + ttlMs });
        return Promise.resolve(true);
      },
      renew: (type, partition) => {
        if (!held(type, partition)) return Promise.resolve(false);
        this.leases.set(leaseId(type, partition), { owner: workerId, until: this.now() + ttlMs });
        return Promise.resolve(true);
      },
      release: (type, partition) => {
        if (held(type, partition)) this.leases.delete(leaseId(type, partition));
        return Promise.resolve();
      },
    };
  }
}
