import { MemorySnapshotStore } from '../../../src/store/memory-snapshot-store.js';
import { snapshotStoreSuite } from '../../support/snapshot-store-suite.js';

let store = new MemorySnapshotStore();
snapshotStoreSuite(
  'in memory',
  () => (store = new MemorySnapshotStore()),
  () => ({
    table: 'suite_views',
    read: (key) => {
      const row = store.views.get('suite_views')?.get(key);
      return Promise.resolve(row ? { label: row.label as string | null, n: row.n as number | null } : undefined);
    },
  }),
);
