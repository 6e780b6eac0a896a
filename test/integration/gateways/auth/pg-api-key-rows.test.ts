import { afterAll, beforeAll } from 'vitest';
import { pgApiKeyRows } from '../../../../src/gateways/auth/api-key-rows.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { apiKeyRowsSuite } from '../../../support/api-key-rows-suite.js';

let env: Isolated;
beforeAll(async () => {
  env = await isolated();
});
afterAll(async () => {
  await env.cleanup();
});

apiKeyRowsSuite('PostgreSQL', () => pgApiKeyRows(env.sql));
