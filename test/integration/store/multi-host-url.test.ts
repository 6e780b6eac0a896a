import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { adminKey } from '../../support/api.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { freePort } from '../../support/pg-auto-failover.js';

/**
 * DATABASE_URL with several hosts, the first of them down (a failed machine listed first): hearth
 * starts on the next one, serves, and /health names it by its place in the list.
 */
describe('several hosts in DATABASE_URL', () => {
  let env: Isolated;
  let hearth: Hearth;

  beforeAll(async () => {
    env = await isolated();
    const live = new URL(env.databaseUrl);
    const url = `postgres://${live.username}@127.0.0.1:${await freePort()},${live.hostname}:${live.port || 5432}${live.pathname}`;
    hearth = await startHearth(
      env.config({ DATABASE_URL: url, HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }),
      env.log,
    );
  });

  afterAll(async () => {
    await hearth?.close();
    await env.cleanup();
  });

  it('starts on the second host when the first is down, and serves reads and writes', async () => {
    const base = `http://127.0.0.1:${hearth.port}`;
    const made = await fetch(`${base}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'implementer' }),
    });
    expect(made.status).toBe(201);
    const health = await fetch(`${base}/health`);
    const body = (await health.json()) as { status: string; postgresPrimary?: number };
    expect(health.status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.postgresPrimary).toBe(2);
  });
});
