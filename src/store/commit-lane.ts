import type { CommitLane } from '../actors/runtime/group-committer.js';
import { createSql, type DbOptions, type Sql } from './db.js';
import { createPgSnapshotStore } from './snapshot-store.js';

/**
 * A group commit lane on PostgreSQL: a store on a pool of one connection, which `renew` replaces
 * by a new pool (the old one is ended without waiting: its statement never answered, and the
 * driver would have kept later commits behind it). `end` closes whichever pool is current.
 */
export function pgCommitLane(options: Omit<DbOptions, 'max'>): CommitLane & { end(): Promise<void> } {
  let sql: Sql = createSql({ ...options, max: 1 });
  let store = createPgSnapshotStore(sql);
  return {
    load: (type, keys) => store.load(type, keys),
    loadFacts: (type, refs) => store.loadFacts(type, refs),
    loadTallies: (type, keys) => store.loadTallies(type, keys),
    takeFence: (type, partition, owner) => store.takeFence(type, partition, owner),
    commit: (batch) => store.commit(batch),
    commitMany: (batches) => store.commitMany(batches),
    retireIdle: (r) => store.retireIdle(r),
    renew() {
      void sql.end({ timeout: 0 }).catch(() => undefined);
      sql = createSql({ ...options, max: 1 });
      store = createPgSnapshotStore(sql);
    },
    end: () => sql.end({ timeout: 5 }),
  };
}
