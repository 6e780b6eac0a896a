import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../src/actors/diagnostics/counter.js';
import type { ActorClient } from '../../src/actors/runtime/actor-client.js';
import type { Runtime } from '../../src/actors/runtime/runtime.js';
import type { ActorDefinition } from '../../src/actors/runtime/types.js';
import { eventually, isolated, type Isolated } from '../support/isolated.js';
import { startClient, startRuntime } from '../support/runtime-harness.js';

/** The counter, persisted write-behind: replies at once, snapshots every 30 ms. */
const lazyCounter = {
  ...counterActor,
  type: 'lazy',
  persistence: { mode: 'write-behind', flushMs: 30 },
} as ActorDefinition;

describe('write-behind persistence', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;

  beforeAll(async () => {
    env = await isolated();
    // A cache far smaller than the keys: states are dropped and reloaded while flushes are in
    // flight, so an unflushed state that was dropped would show as lost increments.
    runtime = await startRuntime(env, { actors: [lazyCounter], options: { cacheSize: 5 } });
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  const stored = () =>
    env.sql<{ key: string; count: number }[]>`
      SELECT key, (state ->> 'count')::int AS count FROM actor_snapshots WHERE type = 'lazy' ORDER BY key`;

  it('answers at once, then commits every state, without losing one to eviction while a flush is in flight', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const replies = await Promise.all(
      Array.from({ length: 2_000 }, (_, i) =>
        client.ask<CounterState>('lazy', keys[i % keys.length]!, { kind: 'add', by: 1 }),
      ),
    );
    expect(replies).toHaveLength(2_000);
    // Per key, the replies counted 1..50 with no gap and no repeat.
    const byKey = new Map<string, number[]>();
    replies.forEach((r, i) =>
      byKey.set(keys[i % keys.length]!, [...(byKey.get(keys[i % keys.length]!) ?? []), r.count]),
    );
    for (const counts of byKey.values())
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const rows = await eventually(stored, (r) => r.length === 40 && r.every((x) => x.count === 50));
    expect(rows.map((r) => r.count)).toEqual(keys.map(() => 50));
  });

  it('flushes what it holds when closed, so a new owner starts from every reply it gave', async () => {
    await Promise.all(Array.from({ length: 200 }, () => client.ask('lazy', 'closing', { kind: 'add', by: 1 })));
    await runtime.close();
    const [row] = await env.sql<{ count: number }[]>`
      SELECT (state ->> 'count')::int AS count FROM actor_snapshots WHERE type = 'lazy' AND key = 'closing'`;
    expect(row?.count).toBe(200);
    runtime = await startRuntime(env, { actors: [lazyCounter], options: { cacheSize: 5 } });
    const after = await client.ask<CounterState>('lazy', 'closing', { kind: 'add', by: 1 });
    expect(after.count).toBe(201);
  });
});
