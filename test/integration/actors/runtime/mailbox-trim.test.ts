import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { MailboxOps } from '../../../../src/store/redis/mailbox-ops.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime, tellFields, testRuntimeOptions } from '../../../support/runtime-harness.js';

describe('mailbox trimming', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('drops what every reader is done with, and never an entry still unacknowledged', async () => {
    // A long lease: the held entry must stay with its holder (no take-back) for the whole test.
    const runtime = await startRuntime(env, { options: { trimEveryMs: 100, leaseTtlMs: 60_000 } });
    const client = await startClient(env);
    try {
      const key = 'trimmed';
      const stream = env.keys.mailbox('counter', partitionOf(key, testRuntimeOptions.partitions));
      // An entry another consumer holds unacknowledged (an owner that died mid-batch, say),
      // far below what the live owner goes on to process. The group is made here, not left to
      // the new owner: it makes it when it takes the partition, which may come after this read
      // (the read then failed with NOGROUP, the owner applied the entry, and the stream was
      // trimmed empty: seen on the cluster, where taking a partition is slower).
      await env.redis.xgroup('CREATE', stream, env.keys.group, '0', 'MKSTREAM').catch((err: Error) => {
        if (!err.message.includes('BUSYGROUP')) throw err;
      });
      // The owner must hold the partition before the entry is held: an owner taking it later
      // claims every pending entry of the group (a previous owner's), this one too, applies it,
      // and the stream is trimmed past it (seen on the cluster pass, where taking a partition is
      // slower under load). An answered ask means the partition is taken and its history read.
      // That ask's entry goes once acknowledged, so that the held entry is the stream's first.
      await client.ask('counter', key, { kind: 'get' });
      await eventually(
        async () => ((await env.redis.xpending(stream, env.keys.group)) as [number])[0],
        (n) => n === 0,
        5_000,
      );
      await env.redis.xtrim(stream, 'MAXLEN', 0);
      const [[, held], [readError, read]] = (await env.redis
        .multi()
        .xadd(stream, '*', ...tellFields('other', { kind: 'get' }))
        .xreadgroup('GROUP', env.keys.group, 'holder', 'COUNT', 1, 'STREAMS', stream, '>')
        .exec()) as [[null, string], [Error | null, unknown]];
      expect(readError).toBeNull();
      expect(JSON.stringify(read)).toContain(held);
      for (let i = 0; i < 3_000; i += 100) {
        await Promise.all(Array.from({ length: 100 }, () => client.tell('counter', key, { kind: 'add', by: 1 })));
      }
      await eventually(
        () => client.ask<{ count: number }>('counter', key, { kind: 'get' }),
        (s) => s.count === 3_000,
        10_000,
      );
      // Trimming is approximate (MINID ~) and stops at the held entry: nothing below it goes.
      const first = await eventually(
        async () => (await env.redis.xrange(stream, '-', '+', 'COUNT', 1))[0]?.[0],
        (id) => id === held,
        5_000,
      );
      expect(first).toBe(held);
      expect(await env.redis.xlen(stream)).toBeGreaterThan(3_000); // the held entry pins the rest

      // Once it is acknowledged, the entries every reader is done with go.
      await env.redis.xack(stream, env.keys.group, held);
      const length = await eventually(
        () => env.redis.xlen(stream),
        (n) => n < 1_000,
        5_000,
      );
      expect(length).toBeLessThan(1_000);
      expect(await client.ask<{ count: number }>('counter', key, { kind: 'get' })).toMatchObject({ count: 3_000 });
    } finally {
      await client.close();
      await runtime.close();
    }
  });

  it("drops the stranded marks and takeover counts of entries no longer pending, and keeps a pending entry's", async () => {
    const stream = env.keys.mailbox('echo', 99);
    const marks = env.keys.stranded('echo', 99);
    const attempts = env.keys.attempts('echo', 99);
    const ops = new MailboxOps(env.redis, {
      partition: 99,
      stream,
      group: env.keys.group,
      consumer: 'owner',
      strandedKey: marks,
      attemptsKey: attempts,
      deadStream: env.keys.deadLetter('echo', 99),
    });
    await ops.ensureGroup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await env.redis.xadd(stream, '*', ...tellFields(`k${i}`, { kind: 'get' })))!);
    await env.redis.xreadgroup('GROUP', env.keys.group, 'owner', 'COUNT', 3, 'STREAMS', stream, '>');
    const [first, second, third] = ids as [string, string, string];
    // The first two were settled by a path that left their marks and counts behind.
    await env.redis.xack(stream, env.keys.group, first, second);
    await env.redis.sadd(marks, first, second, third);
    await env.redis.hset(attempts, first, 2, second, 1, third, 1);

    await ops.trim();
    expect(await env.redis.smembers(marks)).toEqual([third]);
    expect(await env.redis.hkeys(attempts)).toEqual([third]);

    // Nothing pending: the bound is the last delivered entry, so every mark goes.
    await env.redis.xack(stream, env.keys.group, third);
    await ops.trim();
    expect(await env.redis.scard(marks)).toBe(0);
    expect(await env.redis.hlen(attempts)).toBe(0);
  });
});
