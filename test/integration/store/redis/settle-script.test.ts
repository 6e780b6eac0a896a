import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeReply } from '../../../../src/actors/runtime/entry-codec.js';
import { connectRedis, createRedis, type RedisClient } from '../../../../src/store/redis/redis.js';
import { ackAndReply } from '../../../../src/store/redis/settle-script.js';
import { eventually, isolated, onCluster, type Isolated } from '../../../support/isolated.js';
import { startProxy, viaProxy } from '../../../support/tcp-proxy.js';

describe('acknowledging a batch and replying in one script', () => {
  let env: Isolated;
  /** A connection like the worker's own (auto-pipelined, no offline queue). */
  let worker: RedisClient;

  beforeAll(async () => {
    env = await isolated();
    worker = await connectRedis(createRedis(env.redisUrl, 'settle-test'), env.redisUrl);
  });

  afterAll(async () => {
    worker.disconnect();
    await env.cleanup();
  });

  /** A mailbox with `n` entries read (so pending) by consumer 'w'; returns their ids. */
  async function pendingEntries(stream: string, n: number): Promise<string[]> {
    await env.redis.xgroup('CREATE', stream, env.keys.group, '0', 'MKSTREAM');
    const add = env.redis.pipeline();
    for (let i = 0; i < n; i++) add.xadd(stream, '*', 'key', `k${i}`);
    await add.exec();
    const read = (await env.redis.xreadgroup(
      'GROUP',
      env.keys.group,
      'w',
      'COUNT',
      n,
      'STREAMS',
      stream,
      '>',
    )) as Array<[string, Array<[string, string[]]>]>;
    return read[0]![1].map(([id]) => id);
  }

  const pending = async (stream: string): Promise<number> =>
    Number(((await env.redis.xpending(stream, env.keys.group)) as [number])[0]);

  it('acknowledges every id, past the 1,000 one XACK call takes', async () => {
    const stream = `${env.keys.mailbox('counter', 0)}:many`;
    const ids = await pendingEntries(stream, 2_500);
    expect(await pending(stream)).toBe(2_500);
    expect(await ackAndReply(worker, env.keys.group, [{ stream, ids }], [])).toBe(0);
    expect(await pending(stream)).toBe(0);
  });

  it('sends each reply to its own stream in order, skips a gone stream, and counts a refused one', async () => {
    const stream = `${env.keys.mailbox('counter', 1)}:replies`;
    const ids = await pendingEntries(stream, 3);
    const [a, b, gone, wrong] = ['a', 'b', 'gone', 'wrong'].map((g) => env.keys.replies(g)) as [
      string,
      string,
      string,
      string,
    ];
    await env.redis.xadd(a, '*', 'corr', '');
    await env.redis.xadd(b, '*', 'corr', '');
    await env.redis.set(wrong, 'not a stream');
    const refused = await ackAndReply(
      worker,
      env.keys.group,
      [{ stream, ids }],
      [
        { stream: a, corr: 'a1', ok: true, body: '{"n":1}' },
        { stream: wrong, corr: 'w1', ok: true, body: 'null' },
        { stream: b, corr: 'b1', ok: false, body: '{"code":"X"}' },
        { stream: gone, corr: 'g1', ok: true, body: 'null' },
        { stream: a, corr: 'a2', ok: true, body: '{"n":2}' },
      ],
    );
    expect(refused).toBe(1);
    expect(await pending(stream)).toBe(0);
    const read = async (s: string) => (await env.redis.xrange(s, '-', '+')).slice(1).map(([, f]) => decodeReply(f));
    expect(await read(a)).toEqual([
      { corr: 'a1', ok: true, body: '{"n":1}' },
      { corr: 'a2', ok: true, body: '{"n":2}' },
    ]);
    expect(await read(b)).toEqual([{ corr: 'b1', ok: false, body: '{"code":"X"}' }]);
    // NOMKSTREAM: a gateway that went away gets no stream made for it.
    expect(await env.redis.exists(gone)).toBe(0);
  });

  it.skipIf(onCluster)('goes out at once, not held for the check phase like auto-pipelined commands', async () => {
    // A round's replies must not wait behind the rest of the worker's turn (its next read).
    const stream = `${env.keys.mailbox('counter', 3)}:at-once`;
    const ids = await pendingEntries(stream, 2);
    const socket = (worker as unknown as { stream: { write: (chunk: unknown) => boolean } }).stream;
    const writes = vi.spyOn(socket, 'write');
    const settled = ackAndReply(worker, env.keys.group, [{ stream, ids }], []);
    const written = writes.mock.calls.length;
    writes.mockRestore();
    await settled;
    expect(written).toBe(1);
    expect(await pending(stream)).toBe(0);
  });

  it('loads itself again after Redis forgot its scripts, inside a busy auto-pipeline', async () => {
    const stream = `${env.keys.mailbox('counter', 2)}:flushed`;
    const ids = await pendingEntries(stream, 20);
    await ackAndReply(worker, env.keys.group, [{ stream, ids: ids.slice(0, 1) }], []);
    await env.redis.script('FLUSH');
    // Many calls and other commands in one tick, as a busy worker sends them: they leave in one
    // auto-pipelined write, every script call is refused NOSCRIPT, and each must load and run
    // again. (ioredis's own script commands resent themselves outside the pipeline, which then
    // threw an uncaught TypeError in ioredis and would have stopped the worker.)
    const reply = { stream: env.keys.replies('gone'), corr: 'x', ok: true, body: 'null' };
    const calls = ids
      .slice(1)
      .flatMap((id) => [
        ackAndReply(worker, env.keys.group, [{ stream, ids: [id] }], [reply]),
        worker.xlen(stream).then(() => 0),
      ]);
    expect(await Promise.all(calls)).toEqual(calls.map(() => 0));
    expect(await pending(stream)).toBe(0);
  });

  it('runs on a fresh connection whose auto-pipeline another command opened in the same tick', async () => {
    // redis/ioredis#1931: an auto-pipeline copies the client's custom commands when it is made,
    // so a script command defined on first use, after another command of the tick had opened the
    // pipeline, was "not a function" there, and ioredis threw an uncaught TypeError ("results[i]
    // is not iterable"). Seen once in CI; it would have stopped a worker.
    const stream = `${env.keys.mailbox('counter', 7)}:fresh`;
    const ids = await pendingEntries(stream, 3);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    const fresh = await connectRedis(createRedis(env.redisUrl, 'settle-fresh'), env.redisUrl);
    try {
      const [len, refused] = await Promise.all([
        fresh.xlen(stream),
        ackAndReply(fresh, env.keys.group, [{ stream, ids }], []),
      ]);
      expect([len, refused]).toEqual([3, 0]);
      expect(await pending(stream)).toBe(0);
      // A sleep, not a wait for something: room for an uncaught error, which must not come.
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      fresh.disconnect();
    }
  });

  it.skipIf(onCluster)(
    'fails its calls, and nothing else, when the connection is cut under a busy auto-pipeline',
    async () => {
      const target = viaProxy(env.redisUrl);
      const proxy = await startProxy(target.host, target.port);
      const url = viaProxy(env.redisUrl, proxy.port).url;
      const cut = await connectRedis(createRedis(url, 'settle-cut'), url);
      // The cuts are on purpose: the service logs connection errors; here they would only be noise.
      cut.on('error', () => undefined);
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown): void => void uncaught.push(err);
      process.on('uncaughtException', onUncaught);
      try {
        const stream = `${env.keys.mailbox('counter', 6)}:cut`;
        const ids = await pendingEntries(stream, 200);
        const reply = { stream: env.keys.replies('gone'), corr: 'x', ok: true, body: 'null' };
        for (let round = 0; round < 5; round++) {
          // Scripts refused NOSCRIPT and resent, in flight when the connection drops.
          await env.redis.script('FLUSH');
          const calls = ids.map((id) => ackAndReply(cut, env.keys.group, [{ stream, ids: [id] }], [reply]));
          setImmediate(() => proxy.cut());
          const outcomes = await Promise.allSettled(calls);
          expect(outcomes.some((o) => o.status === 'rejected')).toBe(true);
          proxy.restore();
          // Connected again before the next round, so its calls are in flight when it is cut.
          const pong = await eventually(
            () => cut.ping().catch(() => 'down'),
            (p) => p === 'PONG',
            10_000,
            10,
          );
          expect(pong).toBe('PONG');
        }
        // A sleep, not a wait for something: room for an uncaught error, which must not come.
        await new Promise((r) => setTimeout(r, 100));
        expect(uncaught).toEqual([]);
      } finally {
        process.off('uncaughtException', onUncaught);
        cut.disconnect();
        await proxy.close();
      }
    },
  );

  it("acknowledges several mailboxes' batches in one call, each in its own stream", async () => {
    const [one, two, three] = [3, 4, 5].map((p) => `${env.keys.mailbox('counter', p)}:together`) as [
      string,
      string,
      string,
    ];
    const [a, b, c] = [await pendingEntries(one, 2), await pendingEntries(two, 3), await pendingEntries(three, 1)];
    // The third mailbox's batch is left out: its entry stays pending.
    await ackAndReply(
      worker,
      env.keys.group,
      [
        { stream: one, ids: a },
        { stream: two, ids: [] },
        { stream: two, ids: b },
      ],
      [],
    );
    expect([await pending(one), await pending(two), await pending(three)]).toEqual([0, 0, 1]);
    expect(c).toHaveLength(1);
  });
});
