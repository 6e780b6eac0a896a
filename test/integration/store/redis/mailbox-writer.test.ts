import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeEntry, encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { MailboxWriter } from '../../../../src/store/redis/mailbox-writer.js';
import { NodePipe } from '../../../../src/store/redis/node-pipe.js';
import { connectRedis, createRedis, isCluster, type RedisClient } from '../../../../src/store/redis/redis.js';
import { isolated, onCluster, type Isolated } from '../../../support/isolated.js';

describe("a gateway's mailbox writes, one script call per turn", () => {
  let env: Isolated;
  /** A connection like the gateway's own (auto-pipelined, no offline queue). */
  let gateway: RedisClient;

  beforeAll(async () => {
    env = await isolated();
    gateway = await connectRedis(createRedis(env.redisUrl, 'writer-test'), env.redisUrl);
  });

  afterAll(async () => {
    gateway.disconnect();
    await env.cleanup();
  });

  const entry = (key: string, n: number): string[] =>
    encodeEntry({
      key,
      kind: 'add',
      body: JSON.stringify({ kind: 'add', by: n }),
      reply: '',
      corr: '',
      ts: n,
    });

  /** Whether two keys' slots are served by one node (always, on one Redis). */
  async function sameNode(a: string, b: string): Promise<boolean> {
    if (!isCluster(gateway)) return true;
    const slotOf = async (key: string) => Number(await env.redis.call('CLUSTER', 'KEYSLOT', key));
    return gateway.slots[await slotOf(a)]?.join() === gateway.slots[await slotOf(b)]?.join();
  }

  async function entriesOf(stream: string): Promise<Array<{ id: string; key: string; body: string }>> {
    const raw = (await env.redis.xrange(stream, '-', '+')) as Array<[string, string[]]>;
    return raw.map(([id, fields]) => decodeEntry(id, fields)!).map(({ id, key, body }) => ({ id, key, body }));
  }

  it('sends the writes of one turn as one call, each its own entry, in order, with its id', async () => {
    const writer = new MailboxWriter(gateway);
    const calls = vi.spyOn(gateway, 'eval');
    const xadds = vi.spyOn(gateway, 'xadd');
    const pipes = vi.spyOn(NodePipe.prototype, 'send');
    const [a, b] = [env.keys.mailbox('counter', 0), env.keys.mailbox('counter', 1)];
    const ids = await Promise.all([
      writer.write(a, entry('k1', 1)),
      writer.write(b, entry('k2', 2)),
      writer.write(a, entry('k1', 3)),
    ]);
    // On a cluster a script's keys share a slot: an XADD per entry, in one batch per node on the
    // runtime's own connections (one when both slots are on one node); then, once answered, a
    // bell per mailbox with its newest entry's id.
    expect(calls).toHaveBeenCalledTimes(onCluster ? 0 : 1);
    if (onCluster) {
      const commands = () => pipes.mock.calls.flatMap((c) => c[0].map((x) => x.args));
      await vi.waitFor(() => expect(commands().filter((args) => args[0] === 'spublish')).toHaveLength(2));
      const nodes = (await sameNode(a, b)) ? 1 : 2;
      expect(pipes.mock.calls.slice(0, nodes).map((c) => c[0].map((x) => x.args[0]))).toEqual(
        nodes === 1 ? [['xadd', 'xadd', 'xadd']] : [expect.arrayContaining(['xadd']), expect.arrayContaining(['xadd'])],
      );
      expect(commands().filter((args) => args[0] === 'xadd')).toHaveLength(3);
      expect(
        commands()
          .filter((args) => args[0] === 'spublish')
          .map((args) => args.slice(1))
          .sort(),
      ).toEqual(
        [
          [`${a}:bell`, ids[2]],
          [`${b}:bell`, ids[1]],
        ].sort(),
      );
    } else expect(pipes).not.toHaveBeenCalled();
    expect(xadds).not.toHaveBeenCalled();
    calls.mockRestore();
    xadds.mockRestore();
    pipes.mockRestore();
    expect(await entriesOf(a)).toEqual([
      { id: ids[0], key: 'k1', body: '{"kind":"add","by":1}' },
      { id: ids[2], key: 'k1', body: '{"kind":"add","by":3}' },
    ]);
    expect(await entriesOf(b)).toEqual([{ id: ids[1], key: 'k2', body: '{"kind":"add","by":2}' }]);
    // Every field stays readable for redis-cli, as a plain XADD would write it.
    const raw = (await env.redis.xrange(b, '-', '+')) as Array<[string, string[]]>;
    expect(raw[0]?.[1]).toEqual(entry('k2', 2));
  });

  it('splits a large turn into calls of at most 256 writes, in order (on a cluster, one write)', async () => {
    const writer = new MailboxWriter(gateway);
    const calls = onCluster ? vi.spyOn(NodePipe.prototype, 'send') : vi.spyOn(gateway, 'eval');
    const stream = env.keys.mailbox('counter', 6);
    const ids = await Promise.all(Array.from({ length: 600 }, (_, i) => writer.write(stream, entry(`k${i}`, i))));
    // On a cluster: the 600 XADDs and one bell in one write to the mailbox's node.
    expect(calls).toHaveBeenCalledTimes(onCluster ? 1 : 3);
    calls.mockRestore();
    const written = await entriesOf(stream);
    expect(written.map((e) => e.id)).toEqual(ids);
    expect(written.map((e) => e.key)).toEqual(Array.from({ length: 600 }, (_, i) => `k${i}`));
  });

  it.skipIf(onCluster)("sends a turn's writes in that turn's check phase, not one turn later", async () => {
    const writer = new MailboxWriter(gateway);
    const socket = (gateway as unknown as { stream: { write: (chunk: unknown) => boolean } }).stream;
    const writes = vi.spyOn(socket, 'write');
    const stream = env.keys.mailbox('counter', 7);
    const ids = Promise.all([writer.write(stream, entry('a', 1)), writer.write(stream, entry('b', 2))]);
    await new Promise((r) => setImmediate(r));
    const written = writes.mock.calls.length;
    writes.mockRestore();
    expect((await ids).length).toBe(2);
    expect(written).toBe(1);
  });

  it("keeps one key's writes in order, a lone write's turn and a later turn's, behind a slow command", async () => {
    const writer = new MailboxWriter(gateway);
    const stream = env.keys.mailbox('counter', 9);
    // An auto-pipelined command that holds the connection's pipeline for 200 ms: a lone write
    // sent as a plain XADD waited behind it, while a later turn's script call went at once.
    const held = gateway.blpop(`${stream}:nothing`, 0.2);
    const first = writer.write(stream, entry('k', 1));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const later = [writer.write(stream, entry('k', 2)), writer.write(stream, entry('k', 3))];
    await Promise.all([held, first, ...later]);
    expect((await entriesOf(stream)).map((e) => JSON.parse(e.body) as unknown)).toEqual([
      { kind: 'add', by: 1 },
      { kind: 'add', by: 2 },
      { kind: 'add', by: 3 },
    ]);
  });

  it('sends a write alone in its turn through the same script (on a cluster, the same connection)', async () => {
    const writer = new MailboxWriter(gateway);
    const calls = onCluster ? vi.spyOn(NodePipe.prototype, 'send') : vi.spyOn(gateway, 'eval');
    const stream = env.keys.mailbox('counter', 2);
    const id = await writer.write(stream, entry('solo', 1));
    expect(calls).toHaveBeenCalledTimes(1);
    calls.mockRestore();
    expect(await entriesOf(stream)).toEqual([{ id, key: 'solo', body: '{"kind":"add","by":1}' }]);
  });

  it('fails only the writes whose mailbox Redis refuses (a key of another type in its place)', async () => {
    const writer = new MailboxWriter(gateway);
    const wrong = `${env.keys.mailbox('counter', 3)}:wrong`;
    await env.redis.set(wrong, 'not a stream');
    const good = env.keys.mailbox('counter', 4);
    const [refused, written] = await Promise.allSettled([
      writer.write(wrong, entry('x', 1)),
      writer.write(good, entry('y', 2)),
    ]);
    expect(refused.status).toBe('rejected');
    expect(String((refused as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    expect(written.status).toBe('fulfilled');
    expect(await entriesOf(good)).toHaveLength(1);
  });

  it('writes any text as a plain XADD would: quotes, escapes, emoji, a lone surrogate', async () => {
    const writer = new MailboxWriter(gateway);
    const stream = env.keys.mailbox('counter', 8);
    const odd = 'k "q" \\ \n é 😀 \u0000';
    const cut = 'key-\ud83d'; // half an emoji: UTF-8 has no such character, so Redis gets U+FFFD
    await Promise.all([writer.write(stream, entry(odd, 1)), writer.write(stream, entry(cut, 2))]);
    await gateway.xadd(stream, '*', ...entry(cut, 3));
    expect((await entriesOf(stream)).map((e) => e.key)).toEqual([odd, 'key-\ufffd', 'key-\ufffd']);
  });

  it('runs after Redis forgot its scripts (a restart): EVAL, never a NOSCRIPT retry', async () => {
    const writer = new MailboxWriter(gateway);
    await env.redis.script('FLUSH');
    const stream = env.keys.mailbox('counter', 5);
    const ids = await Promise.all([writer.write(stream, entry('a', 1)), writer.write(stream, entry('b', 2))]);
    expect((await entriesOf(stream)).map((e) => e.id)).toEqual(ids);
  });
});
