import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { createMetrics } from '../../../../src/metrics.js';
import { countOf, eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime, testRuntimeOptions } from '../../../support/runtime-harness.js';

describe('redelivery', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;
  const metrics = createMetrics();

  beforeAll(async () => {
    env = await isolated();
    runtime = await startRuntime(env, { metrics });
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  it('acknowledges an already-applied message without changing state', async () => {
    const keys = ['r1', 'r2', 'r3'];
    for (let i = 0; i < 10; i++) await Promise.all(keys.map((k) => client.ask('counter', k, { kind: 'add', by: 2 })));
    const before = await Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' })));

    // Rewind every counter mailbox: the group delivers all of its entries a second time.
    for (let p = 0; p < testRuntimeOptions.partitions; p++) {
      await env.redis.xgroup('SETID', env.keys.mailbox('counter', p), env.keys.group, '0');
    }
    const skipped = await eventually(
      async () => (await metrics.redeliveriesSkipped.get()).values.reduce((n, v) => n + v.value, 0),
      (n) => n >= 30,
      10_000,
    );
    expect(skipped).toBeGreaterThanOrEqual(30);

    const after = await Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' })));
    expect(after).toEqual(before);
    expect(after.every((s) => s.count === 20 && s.applied === 10)).toBe(true);
    const n = await countOf(env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`);
    expect(n).toBe(30);
  });

  it('skips them by the snapshot in PostgreSQL too, after a restart left nothing in memory', async () => {
    const keys = ['r1', 'r2', 'r3'];
    const before = await Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' })));
    await runtime.close();
    // Rewound before the new owner starts: its first trim must find everything still to deliver.
    for (let p = 0; p < testRuntimeOptions.partitions; p++) {
      await env.redis.xgroup('SETID', env.keys.mailbox('counter', p), env.keys.group, '0');
    }
    const fresh = createMetrics();
    runtime = await startRuntime(env, { metrics: fresh });
    const skipped = await eventually(
      async () => (await fresh.redeliveriesSkipped.get()).values.reduce((n, v) => n + v.value, 0),
      (n) => n >= 30,
      10_000,
    );
    expect(skipped).toBeGreaterThanOrEqual(30);
    const after = await Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' })));
    expect(after).toEqual(before);
    const n = await countOf(env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`);
    expect(n).toBe(30);
  });
});
