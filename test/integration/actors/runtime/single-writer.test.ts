import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { countOf, eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { echoActor } from '../../../../src/actors/echo/index.js';
import { startClient, startRuntime } from '../../../support/runtime-harness.js';

describe('single writer per partition', () => {
  let env: Isolated;
  let client: ActorClient;

  beforeAll(async () => {
    env = await isolated();
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await env.cleanup();
  });

  it('never lets two runtimes own one partition, and applies every message once while ownership moves', async () => {
    const a = await startRuntime(env, { workerId: 'worker-a' });
    expect(a.ownedPartitions().length).toBe(8); // 4 echo + 4 counter partitions

    const overlaps: string[] = [];
    let b: Runtime | undefined;
    const sample = setInterval(() => {
      const mine = new Set(a.ownedPartitions());
      for (const p of b?.ownedPartitions() ?? []) if (mine.has(p)) overlaps.push(p);
    }, 5);

    const keys = Array.from({ length: 40 }, (_, i) => `sw-${i}`);
    const perKey = 60;
    let sent = 0;
    for (let seq = 1; seq <= perKey; seq++) {
      await Promise.all(keys.map((k) => client.tell('counter', k, { kind: 'add', by: 1, seq })));
      sent += keys.length;
      if (seq === 10) b = await startRuntime(env, { workerId: 'worker-b' }); // joins: half the partitions move
      if (seq === 40) await a.close(); // leaves: the rest move to b
      await new Promise((r) => setTimeout(r, 15)); // a sleep on purpose: paces the load while ownership moves
    }
    expect(sent).toBe(2_400);

    const states = await eventually(
      () => Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' }))),
      (all) => all.every((s) => s.applied === perKey),
      30_000,
      250,
    );
    clearInterval(sample);
    expect(overlaps).toEqual([]);
    expect(b?.ownedPartitions().length).toBe(8);
    for (const s of states) expect(s).toEqual({ count: perKey, applied: perKey, lastSeq: perKey, outOfOrder: 0 });
    const n = await countOf(
      env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox WHERE actor_type = 'counter'`,
    );
    expect(n).toBe(sent);
    await b?.close();
  });

  it('spreads partitions evenly over live workers', async () => {
    const workers = await Promise.all(['w1', 'w2', 'w3'].map((id) => startRuntime(env, { workerId: `even-${id}` })));
    const counts = await eventually(
      () => Promise.resolve(workers.map((w) => w.ownedPartitions().length)),
      (c) => c.reduce((x, y) => x + y, 0) === 8 && Math.max(...c) - Math.min(...c) <= 2,
      15_000,
    );
    expect(counts.reduce((x, y) => x + y, 0)).toBe(8);
    // 4 partitions per type over 3 workers: each gets 1 or 2 of each type.
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);
    await Promise.all(workers.map((w) => w.close()));
  });

  // Runtimes of the tests above have left: the membership sets hold only the two below.
  it("deals a type's partitions over the workers that run it only, so none is left unread", async () => {
    const both = await startRuntime(env, { workerId: 'mixed-both', actors: [echoActor, counterActor] });
    const echoOnly = await startRuntime(env, { workerId: 'mixed-echo', actors: [echoActor] });
    const owned = await eventually(
      () => Promise.resolve({ both: both.ownedPartitions(), echoOnly: echoOnly.ownedPartitions() }),
      (o) => o.both.length + o.echoOnly.length === 8 && o.echoOnly.length === 2,
      15_000,
    );
    // Echo is shared 2 + 2; every counter partition stays with the one worker that runs counter.
    expect(owned.echoOnly.every((p) => p.startsWith('echo/'))).toBe(true);
    expect(owned.both.filter((p) => p.startsWith('counter/')).sort()).toEqual([
      'counter/0',
      'counter/1',
      'counter/2',
      'counter/3',
    ]);
    expect(owned.both.filter((p) => p.startsWith('echo/'))).toHaveLength(2);
    expect(await env.redis.zrange(env.keys.typeWorkers('counter'), 0, -1)).toEqual(['mixed-both']);

    // A counter message to every partition is applied (none sits in a partition nobody reads).
    const keys = Array.from({ length: 16 }, (_, i) => `mixed-${i}`);
    expect(new Set(keys.map((k) => partitionOf(k, 4))).size).toBe(4);
    const states = await Promise.all(
      keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'add', by: 1, seq: 1 })),
    );
    expect(states).toHaveLength(16);
    const echoed = await Promise.all(keys.map((k) => client.ask('echo', k, { kind: 'echo', payload: k })));
    expect(echoed).toHaveLength(16);

    await echoOnly.close();
    expect(await env.redis.zrange(env.keys.typeWorkers('echo'), 0, -1)).toEqual(['mixed-both']);
    await both.close();
  });
});
