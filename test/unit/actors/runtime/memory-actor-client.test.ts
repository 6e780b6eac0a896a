import { afterEach, describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { MemoryActorClient } from '../../../../src/actors/runtime/memory-actor-client.js';
import { MemoryLeaseTable } from '../../../../src/actors/runtime/memory-leases.js';
import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import { Runtime, type RuntimeOptions } from '../../../../src/actors/runtime/runtime.js';
import { AppError } from '../../../../src/errors/index.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/**
 * The gateway's asks on the in-memory mailboxes: a worker on the same broker answers them by
 * correlation id, as it answers the Redis client's, with the same deadline and shutdown errors.
 */
const options: RuntimeOptions = {
  partitions: 4,
  leaseTtlMs: 300,
  batch: 64,
  blockMs: 20,
  maxDeliveries: 3,
  cacheSize: 1_000,
  trimEveryMs: 60_000,
};
const open: Array<{ close(): Promise<void> }> = [];

function setUp(maxInFlight = 100) {
  const broker = new MemoryMailboxes();
  const runtime = new Runtime({
    workerId: 'w',
    mailboxOf: (type) => broker.mailbox(type, 'w'),
    leases: new MemoryLeaseTable().forWorker('w', options.leaseTtlMs, ['counter']),
    store: new MemorySnapshotStore(),
    log: createLogger('silent', 'test'),
    metrics: createMetrics(),
    actors: [counterActor],
    options,
  });
  const client = new MemoryActorClient(
    broker,
    'g1',
    { defaultTimeoutMs: 2_000, maxInFlight, partitionsOf: () => options.partitions },
    createMetrics(),
  );
  open.push(client, runtime);
  return { broker, runtime, client };
}

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

describe('MemoryActorClient', () => {
  it('asks actors across partitions and gets each its own answer', async () => {
    const { runtime, client } = setUp();
    await runtime.start();
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    const replies = await Promise.all(keys.map((k) => client.ask<{ count: number }>('counter', k, { kind: 'add' })));
    expect(replies.map((r) => r.count)).toEqual(keys.map(() => 1));
    await client.ask('counter', 'a', { kind: 'add', by: 4 });
    expect(await client.ask<{ count: number }>('counter', 'a', { kind: 'get' })).toMatchObject({ count: 5 });
  });

  it("answers an actor's refusal as the error it names", async () => {
    const { runtime, client } = setUp();
    await runtime.start();
    const err = await client.ask('counter', 'a', { kind: 'add', by: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 400 });
  });

  it('tells without waiting, and the message is applied', async () => {
    const { runtime, client } = setUp();
    await runtime.start();
    await client.tell('counter', 'told', { kind: 'add', by: 3 });
    expect(await client.ask<{ count: number }>('counter', 'told', { kind: 'get' })).toMatchObject({ count: 3 });
  });

  it('fails with ASK_TIMEOUT when no worker answers, and the message waits in its mailbox', async () => {
    const { runtime, client } = setUp();
    const err = await client.ask('counter', 'k', { kind: 'add' }, 100).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ASK_TIMEOUT', status: 504 });
    await runtime.start();
    expect(await client.ask<{ count: number }>('counter', 'k', { kind: 'add' })).toMatchObject({ count: 2 });
  });

  it('refuses asks past its in-flight limit (OVERLOADED) and after close (SHUTTING_DOWN), failing those waiting', async () => {
    const { client } = setUp(1);
    const waiting = client.ask('counter', 'k', { kind: 'add' }).catch((e: unknown) => e);
    expect(await client.ask('counter', 'k', { kind: 'add' }).catch((e: unknown) => e)).toMatchObject({
      code: 'OVERLOADED',
    });
    await client.close();
    expect(await waiting).toMatchObject({ code: 'SHUTTING_DOWN' });
    expect(await client.ask('counter', 'k', { kind: 'add' }).catch((e: unknown) => e)).toMatchObject({
      code: 'SHUTTING_DOWN',
    });
  });

  it('rejects a message JSON cannot hold, without waiting out its deadline', async () => {
    const { client } = setUp();
    const started = Date.now();
    const err = await client.ask('counter', 'k', { kind: 'add', by: 1n }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
