import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeReply } from '../../src/actors/runtime/entry-codec.js';
import { connectRedis, createRedis, type Redis } from '../../src/actors/runtime/redis.js';
import { ackAndReply } from '../../src/actors/runtime/settle-script.js';
import { isolated, type Isolated } from '../support/isolated.js';

describe('acknowledging a batch and replying in one script', () => {
  let env: Isolated;
  /** A connection like the worker's own (auto-pipelined, no offline queue). */
  let worker: Redis;

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

  it('loads itself again after Redis forgot its scripts', async () => {
    const stream = `${env.keys.mailbox('counter', 2)}:flushed`;
    const ids = await pendingEntries(stream, 2);
    await ackAndReply(worker, env.keys.group, [{ stream, ids: ids.slice(0, 1) }], []);
    await env.redis.script('FLUSH');
    // Two in one tick: they leave in one auto-pipelined write, as a round's settles do.
    await Promise.all([
      ackAndReply(worker, env.keys.group, [{ stream, ids: ids.slice(1) }], []),
      ackAndReply(
        worker,
        env.keys.group,
        [],
        [{ stream: env.keys.replies('gone'), corr: 'x', ok: true, body: 'null' }],
      ),
    ]);
    expect(await pending(stream)).toBe(0);
  });

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
