import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { emptySlot } from '../../../../src/actors/runtime/apply-batch.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { GroupCommitter } from '../../../../src/actors/runtime/group-committer.js';
import { FencedError } from '../../../../src/actors/runtime/ports.js';
import { createPgSnapshotStore } from '../../../../src/store/snapshot-store.js';
import { countOf, isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime, testRuntimeOptions } from '../../../support/runtime-harness.js';

describe('fencing epochs', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it("rejects a stale owner's snapshot write and keeps the newer state", async () => {
    const store = createPgSnapshotStore(env.sql);
    const old = await store.takeFence('counter', 0, 'old-owner');
    await store.commit({
      type: 'counter',
      partition: 0,
      epoch: old,
      dirty: new Map([['k', { state: { count: 1 }, version: 1, lastMsgId: '1-0' }]]),
      outbox: [],
    });
    const fresh = await store.takeFence('counter', 0, 'new-owner');
    expect(fresh).toBe(old + 1);

    const stale = store.commit({
      type: 'counter',
      partition: 0,
      epoch: old,
      dirty: new Map([['k', { state: { count: 99 }, version: 2, lastMsgId: '2-0' }]]),
      outbox: [{ key: 'k', msgId: '2-0', seq: 0, topic: 'x', payload: {} }],
    });
    await expect(stale).rejects.toBeInstanceOf(FencedError);
    const slots = await store.load('counter', ['k']);
    expect(slots.get('k')).toEqual({ state: { count: 1 }, version: 1, lastMsgId: '1-0' });
    const n = await countOf(env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`);
    expect(n).toBe(0);
  });

  it('refuses a write that does not advance the version (two writers from one snapshot)', async () => {
    const store = createPgSnapshotStore(env.sql);
    const epoch = await store.takeFence('counter', 1, 'one');
    const write = (count: number) =>
      store.commit({
        type: 'counter',
        partition: 1,
        epoch,
        dirty: new Map([['v', { ...emptySlot(), state: { count }, version: 1, lastMsgId: '5-0' }]]),
        outbox: [],
      });
    await write(1);
    await expect(write(2)).rejects.toBeInstanceOf(FencedError);
    expect((await store.load('counter', ['v'])).get('v')?.state).toEqual({ count: 1 });
  });

  it('a running worker that finds itself fenced stops the partition and takes it back with a new epoch', async () => {
    const runtime = await startRuntime(env, { workerId: 'fenced-worker' });
    const client: ActorClient = await startClient(env);
    const key = 'fence-key';
    const p = partitionOf(key, testRuntimeOptions.partitions);
    await client.ask('counter', key, { kind: 'add', by: 1 });
    const [before] = await env.sql<
      { epoch: string }[]
    >`SELECT epoch FROM partition_fences WHERE type = 'counter' AND partition = ${p}`;
    // Another owner takes the fence behind the worker's back (as after a long GC pause).
    await env.sql`UPDATE partition_fences SET epoch = epoch + 1, owner = 'intruder' WHERE type = 'counter' AND partition = ${p}`;
    // The worker's next commit is refused; the message stays pending, the worker hands the
    // partition back, re-takes it with a fresh epoch and applies the message exactly once.
    const reply = await client.ask<{ count: number; applied: number }>('counter', key, { kind: 'add', by: 1 }, 10_000);
    expect(reply).toMatchObject({ count: 2, applied: 2 });
    const [after] = await env.sql<
      { owner: string; epoch: string }[]
    >`SELECT owner, epoch FROM partition_fences WHERE type = 'counter' AND partition = ${p}`;
    expect(after?.owner).toBe('fenced-worker');
    expect(Number(after?.epoch)).toBe(Number(before?.epoch) + 2);
    await expect(client.ask('counter', key, { kind: 'get' })).resolves.toMatchObject({ count: 2, applied: 2 });
    await client.close();
    await runtime.close();
  });
});

describe('group commit', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('commits the good batches of a group and fails only the bad one', async () => {
    const store = createPgSnapshotStore(env.sql);
    const epochs = await Promise.all([0, 1, 2].map((p) => store.takeFence('counter', p, 'me')));
    const batch = (p: number, key: string, version: number) => ({
      type: 'counter',
      partition: p,
      epoch: epochs[p]!,
      dirty: new Map([[key, { state: { v: version }, version, lastMsgId: `${version}-0` }]]),
      outbox: [],
    });
    await store.commit(batch(1, 'stale', 5));
    const committer = new GroupCommitter([store]);
    // Handed in in one tick, the three go in one statement; the stale one aborts it.
    const first = committer.commit(batch(0, 'warm', 1));
    const good = committer.commit(batch(2, 'good', 1));
    const bad = committer.commit(batch(1, 'stale', 3)); // does not advance version 5: aborts its statement
    await first;
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toBeInstanceOf(FencedError);
    const slots = await store.load('counter', ['good', 'stale']);
    expect(slots.get('good')?.version).toBe(1);
    expect(slots.get('stale')?.version).toBe(5);
  });

  it("puts a round's batches, handed in one after another in one tick, in one statement", async () => {
    const store = createPgSnapshotStore(env.sql);
    const epochs = await Promise.all([3, 4, 5, 6, 7, 8].map((p) => store.takeFence('grouped', p, 'me')));
    const statements: number[] = [];
    const counting = {
      ...store,
      commitMany: (b: Parameters<typeof store.commitMany>[0]) => {
        statements.push(b.length);
        return store.commitMany(b);
      },
    };
    const committer = new GroupCommitter([counting, counting]);
    await Promise.all(
      epochs.map((epoch, i) =>
        committer.commit({
          type: 'grouped',
          partition: i + 3,
          epoch,
          dirty: new Map([[`k${i}`, { state: { i }, version: 1, lastMsgId: '1-0' }]]),
          outbox: [],
        }),
      ),
    );
    expect(statements).toEqual([6]);
    const slots = await store.load('grouped', ['k0', 'k5']);
    expect([...slots.values()].map((s) => s.version)).toEqual([1, 1]);
  });
});
