import { MemorySnapshotStore } from '../../src/store/memory-snapshot-store.js';
import { snapshotStoreSuite } from '../support/snapshot-store-suite.js';

snapshotStoreSuite('in memory', () => new MemorySnapshotStore());
