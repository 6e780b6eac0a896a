import { afterAll, beforeAll } from 'vitest';
import { pgRegistryRows } from '../../../src/store/registries/pg-registry-rows.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { registryRowsSuite } from '../../support/registry-rows-suite.js';

let env: Isolated;
beforeAll(async () => {
  env = await isolated();
});
afterAll(async () => {
  await env.cleanup();
});

registryRowsSuite('PostgreSQL', (spec) => pgRegistryRows(env.sql, spec));
