import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { encodeEntry, type MailboxEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { emptySlot } from '../../../../src/actors/runtime/apply-batch.js';
import { redisMailboxFor } from '../../../../src/store/redis/mailbox-for.js';
import { createRedis } from '../../../../src/store/redis/redis.js';
import { newOwned, type Owned } from '../../../../src/actors/runtime/round-commit.js';
import { SlotCache } from '../../../../src/actors/runtime/slot-cache.js';
import { WriteBehind } from '../../../../src/actors/runtime/write-behind.js';
import { createMetrics } from '../../../../src/metrics.js';
import { createSql } from '../../../../src/store/db.js';
import type { SnapshotStore } from '../../../../src/actors/runtime/ports.js';
import { createPgSnapshotStore } from '../../../../src/store/snapshot-store.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime, testRuntimeOptions } from '../../../support/runtime-harness.js';
import { startProxy, viaProxy } from '../../../support/tcp-proxy.js';

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

  it('answers the keys it holds in memory while a new key of the same round is still loading', async () => {
    // A type of its own on a runtime of its own, PostgreSQL behind a proxy. The file's runtime
    // steps aside meanwhile: partitions are spread over every live worker, whatever it runs.
    await runtime.close();
    const loading = { ...lazyCounter, type: 'loading' } as ActorDefinition;
    const pg = viaProxy(env.databaseUrl);
    const proxy = await startProxy(pg.host, pg.port);
    const sql = createSql({ url: viaProxy(env.databaseUrl, proxy.port).url, schema: env.schema, max: 2 });
    const own = await startRuntime(env, { actors: [loading], sql });
    try {
      expect(await client.ask<CounterState>('loading', 'known', { kind: 'add', by: 1 })).toMatchObject({ count: 1 });
      const replies = `${env.keys.prefix}:test-replies`;
      await env.redis.xadd(replies, '*', 'corr', '', 'ok', '1', 'body', 'null');
      const ask = (key: string, corr: string): [string, string[]] => [
        env.keys.mailbox('loading', partitionOf(key, testRuntimeOptions.partitions)),
        encodeEntry({
          key,
          kind: 'add',
          body: JSON.stringify({ kind: 'add', by: 1 }),
          reply: replies,
          corr,
          ts: Date.now(),
        }),
      ];
      const answered = async (): Promise<string[]> =>
        (await env.redis.xrange(replies, '-', '+')).map(([, f]) => f[f.indexOf('corr') + 1]!).filter(Boolean);

      // PostgreSQL stops answering; both asks arrive at once, so one read takes them together.
      proxy.stall();
      // In one partition: a reader blocked on several streams is served the first that fills.
      const sameStream = (k: string) =>
        partitionOf(k, testRuntimeOptions.partitions) === partitionOf('known', testRuntimeOptions.partitions);
      const freshKey = Array.from({ length: 100 }, (_, i) => `fresh-${i}`).find(sameStream)!;
      const [known, fresh] = [ask('known', 'known-2'), ask(freshKey, 'fresh-1')];
      await env.redis
        .multi()
        .xadd(known[0], '*', ...known[1])
        .xadd(fresh[0], '*', ...fresh[1])
        .exec();
      const seen = await eventually(answered, (c) => c.includes('known-2'), 5_000, 50);
      expect(seen).toContain('known-2');
      // The new key's state is still on its way: its ask waits for it.
      expect(seen).not.toContain('fresh-1');
    } finally {
      proxy.restore();
      await own.close();
      await sql.end({ timeout: 1 });
      await proxy.close();
      runtime = await startRuntime(env, { actors: [lazyCounter], options: { cacheSize: 5 } });
    }
  });

  it('never ends a round while its load is in flight, even when answering the in-memory half fails', async () => {
    // The state of 'cold' loads behind a gate; the reply for 'warm' goes to a Redis connection
    // that was never opened, so the in-memory half fails at once. Ended then, the round would
    // let its load land after the recovery, over the replay's newer state of the same key.
    let openGate = (): void => undefined;
    const gate = new Promise<void>((r) => (openGate = r));
    let loaded = false;
    const real = createPgSnapshotStore(env.sql);
    const store: SnapshotStore = {
      ...real,
      load: async (type, keys) => {
        await gate;
        const slots = await real.load(type, keys);
        loaded = true;
        return slots;
      },
    };
    const closed = createRedis(env.redisUrl, 'never-connected');
    const cache = new SlotCache(100);
    cache.set('warm', emptySlot());
    const mailbox = redisMailboxFor(
      { type: 'lazy', keys: env.keys, redis: closed, consumer: 'w', log: env.log },
      () => closed,
    );
    const ops = mailbox.partition(0);
    // A partition already taken (prepared, reading new entries), as the worker keeps it.
    const o: Owned = { ...newOwned(0, 1, performance.now() + 60_000, ops, cache), cursor: '>', prepared: true };
    const wb = new WriteBehind(
      {
        def: lazyCounter,
        store,
        log: env.log,
        metrics: createMetrics(),
        options: { maxDeliveries: 3 },
        mailbox,
        workerId: 'w',
      },
      30,
      () => Promise.resolve(),
      () => undefined,
    );
    const entry = (id: string, key: string): MailboxEntry => ({
      id,
      key,
      kind: 'add',
      body: JSON.stringify({ kind: 'add', by: 1 }),
      reply: env.keys.replies('nobody'),
      corr: id,
      ts: Date.now(),
    });
    const decoded = { entries: [entry('1-1', 'warm'), entry('1-2', 'cold')], deletedIds: [], missing: ['cold'] };
    let ended = false;
    const round = wb.applyRound([{ o, cache, decoded }], new Date()).then(
      () => new Error('the round should have failed'),
      (err: unknown) => {
        ended = true;
        return err;
      },
    );
    // A sleep, not a wait for something: room for the round to end early, which it must not.
    await new Promise((r) => setTimeout(r, 300));
    expect(ended).toBe(false);
    openGate();
    const err = await round;
    expect(String(err)).toMatch(/writeable|offline|connect/i);
    expect(loaded).toBe(true);
    closed.disconnect();
  });
});
