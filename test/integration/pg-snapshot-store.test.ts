import { afterAll, beforeAll } from 'vitest';
import { createPgSnapshotStore } from '../../src/store/snapshot-store.js';
import { isolated, type Isolated } from '../support/isolated.js';
import { snapshotStoreSuite } from '../support/snapshot-store-suite.js';

let env: Isolated;
beforeAll(async () => {
  env = await isolated();
});
afterAll(async () => {
  await env.cleanup();
});

snapshotStoreSuite('PostgreSQL', () => createPgSnapshotStore(env.sql));
