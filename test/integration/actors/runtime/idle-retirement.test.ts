import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { createMetrics } from '../../../../src/metrics.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime } from '../../../support/runtime-harness.js';

const HOUR = 3_600_000;

/** The counter, retired after an hour idle and with a read model, as a product type would be. */
const retiring: ActorDefinition = {
  ...(counterActor as ActorDefinition),
  retention: { idleMs: HOUR },
  view: { table: 'counter_views', columns: ['count'], row: (s) => ({ count: (s as { count: number }).count }) },
};

describe('idle actors under a retention policy', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;
  let now = new Date();
  const metrics = createMetrics();

  beforeAll(async () => {
    env = await isolated();
    await env.sql`CREATE TABLE counter_views (key text PRIMARY KEY, count integer)`;
    runtime = await startRuntime(env, { actors: [retiring], clock: () => now, metrics });
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  const views = async () =>
    (await env.sql<{ key: string; count: number }[]>`SELECT key, count FROM counter_views ORDER BY key`).map((r) => [
      r.key,
      r.count,
    ]);

  it('keeps a read model row beside each snapshot, written by the same commit', async () => {
    for (let i = 0; i < 3; i++) await client.ask('counter', 'a', { kind: 'add' });
    await client.ask('counter', 'b', { kind: 'add', by: 5 });
    expect(await views()).toEqual([
      ['a', 3],
      ['b', 5],
    ]);
  });

  it('retires nothing that was written within the policy’s idle time', async () => {
    now = new Date(Date.now() + HOUR / 2);
    expect(await runtime.retireIdle()).toBe(0);
    expect(await client.ask('counter', 'a', { kind: 'get' })).toMatchObject({ count: 3 });
  });

  it('retires idle actors through the owner: snapshot, read model row and memory, counted in /metrics', async () => {
    now = new Date(Date.now() + 2 * HOUR);
    expect(await runtime.retireIdle()).toBe(2);
    const left = await env.sql`SELECT key FROM actor_snapshots WHERE type = 'counter'`;
    expect(left.length).toBe(0);
    expect(await views()).toEqual([]);
    expect(await metrics.registry.getSingleMetricAsString('hearth_actors_retired_total')).toMatch(
      /hearth_actors_retired_total\{type="counter"\} 2/,
    );
    // The worker forgot it too: a new message starts from no state, not from the cached one.
    expect(await client.ask('counter', 'a', { kind: 'add' })).toMatchObject({ count: 1, applied: 1 });
    expect(await views()).toEqual([['a', 1]]);
  });
});
