import { afterAll, beforeAll } from 'vitest';
import { pgIdempotencyRows } from '../../../../src/gateways/http/idempotency-rows.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { idempotencyRowsSuite } from '../../../support/idempotency-rows-suite.js';

let env: Isolated;
beforeAll(async () => {
  env = await isolated();
});
afterAll(async () => {
  await env.cleanup();
});

idempotencyRowsSuite('PostgreSQL', () => pgIdempotencyRows(env.sql));
