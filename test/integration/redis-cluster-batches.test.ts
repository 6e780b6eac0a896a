import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClusterMailbox } from '../../src/actors/runtime/cluster-mailbox.js';
import { DeferredAcks } from '../../src/actors/runtime/deferred-acks.js';
import { hashSlot } from '../../src/actors/runtime/hash-slot.js';
import { createKeys } from '../../src/actors/runtime/keys.js';
import { sendPerNode } from '../../src/actors/runtime/node-batch.js';
import {
  connectRedis,
  createRedis,
  isCluster,
  type Cluster,
  type RedisClient,
} from '../../src/actors/runtime/redis.js';
import { createLogger } from '../../src/log.js';
import { onCluster } from '../support/isolated.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';

/**
 * How the cluster path batches its commands: one pipeline per node, a redirected command sent
 * again where it points, acknowledgements carried by the next read, a short grace before a
 * worker blocks. The cluster is this file's own (a slot moves), so it runs in the one-Redis pass.
 */
describe.skipIf(onCluster)('Redis Cluster batches', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  /** The askers' side: another connection (one pipeline of its own would count as the client's). */
  let other: RedisClient;
  const keys = createKeys('batches');
  const group = keys.group;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    const url = `redis+cluster://${cluster.seeds}`;
    const c = await connectRedis(createRedis(url, 'batches-test'), url);
    if (!isCluster(c)) throw new Error('expected a cluster client');
    client = c;
    other = await connectRedis(createRedis(url, 'batches-asker'), url);
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    other?.disconnect();
    await cluster?.stop();
  });

  const nodeOf = (key: string) => client.slots[hashSlot(key)]!.join(',');
  const mailbox = (p: number) => keys.mailbox('batch', p);

  it('sends one pipeline per node, answers in order, each key in the order given', async () => {
    const streams = Array.from({ length: 12 }, (_, p) => mailbox(p));
    const nodes = new Set(streams.map(nodeOf));
    expect(nodes.size).toBeGreaterThan(1);
    const pipelines = vi.spyOn(client, 'pipeline');
    const commands = streams.flatMap((s) =>
      [1, 2, 3].map((n) => ({ key: s, name: 'xadd', args: [s, '*', 'n', String(n)] })),
    );
    const ids = (await Promise.all(sendPerNode(client, commands))) as string[];
    expect(pipelines).toHaveBeenCalledTimes(nodes.size);
    pipelines.mockRestore();
    for (const [i, s] of streams.entries()) {
      const written = await client.xrange(s, '-', '+');
      expect(written.map(([id]) => id)).toEqual(ids.slice(i * 3, i * 3 + 3));
      expect(written.map(([, f]) => f[1])).toEqual(['1', '2', '3']);
    }
  });

  it('sends a command answered MOVED again where its slot went; the others keep their answers', async () => {
    // Two mailboxes on one master; one's slot moves, and the client's map still says the old node.
    const streams = Array.from({ length: 16 }, (_, p) => mailbox(100 + p));
    // Sixteen slots on three masters: some master serves two of them.
    const together = streams.map((s) => streams.filter((o) => nodeOf(o) === nodeOf(s))).find((g) => g.length > 1)!;
    const [moving, staying] = [together[0]!, together[1]!];
    const from = await cluster.masterOf(hashSlot(moving));
    const to = (await cluster.masters()).find((m) => m !== from)!;
    const stale = client.slots[hashSlot(moving)]!;
    await cluster.moveSlot(hashSlot(moving), to);
    client.slots[hashSlot(moving)] = stale;
    const pipelines = vi.spyOn(client, 'pipeline');
    const [movedId, stayedId] = (await Promise.all(
      sendPerNode(client, [
        { key: moving, name: 'xadd', args: [moving, '*', 'n', 'moved'] },
        { key: staying, name: 'xadd', args: [staying, '*', 'n', 'stayed'] },
      ]),
    )) as string[];
    // The pair's pipeline, then the moved one alone.
    expect(pipelines).toHaveBeenCalledTimes(2);
    pipelines.mockRestore();
    expect(movedId).toMatch(/^\d+-\d+$/);
    expect(stayedId).toMatch(/^\d+-\d+$/);
    expect((await cluster.cli(to, 'XLEN', moving)).trim()).toBe('1');
    expect((await cluster.cli(from, 'XLEN', staying)).trim()).toBe('1');
  });

  async function pendingOf(stream: string): Promise<number> {
    const [n] = (await client.xpending(stream, group)) as [number];
    return n;
  }

  async function readAll(stream: string): Promise<string[]> {
    await client.xgroup('CREATE', stream, group, '0', 'MKSTREAM').catch(() => undefined);
    await client.xadd(stream, '*', 'n', '1');
    await client.xadd(stream, '*', 'n', '2');
    const res = (await client.xreadgroup('GROUP', group, 'w', 'STREAMS', stream, '>')) as Array<
      [string, Array<[string, string[]]>]
    >;
    return res[0]![1].map(([id]) => id);
  }

  it('holds acknowledgements until the next read takes them, or until its delay is up', async () => {
    const stream = mailbox(200);
    const ids = await readAll(stream);
    const acks = new DeferredAcks(client, group, 10_000);
    const done = acks.add([{ stream, ids }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(await pendingOf(stream)).toBe(2);
    // A read takes them ahead of its XREADGROUP, in one pipeline: its history is empty.
    const taken = acks.take();
    const history = { key: stream, name: 'xreadgroup', args: ['GROUP', group, 'w', 'STREAMS', stream, '0'] };
    const sent = sendPerNode(client, [...taken.commands, history]);
    taken.settle(sent.slice(0, taken.commands.length));
    expect(await sent[1]).toEqual([[stream, []]]);
    await done;
    expect(await pendingOf(stream)).toBe(0);

    const later = mailbox(201);
    const quick = new DeferredAcks(client, group, 20);
    await quick.add([{ stream: later, ids: await readAll(later) }]);
    expect(await pendingOf(later)).toBe(0);
  });

  it('reads once more after a grace before it blocks, when the last read found entries', async () => {
    const log = createLogger('error', 'batches-test');
    const box = new ClusterMailbox({ type: 'grace', keys, redis: client, consumer: 'w', log }, client);
    const partitions = [0, 1, 2, 3];
    for (const p of partitions) {
      await client.xgroup('CREATE', keys.mailbox('grace', p), group, '$', 'MKSTREAM').catch(() => undefined);
    }
    const cursors = partitions.map((partition) => ({ partition, cursor: '>' }));
    const readers = () => (box as unknown as { readers: Map<number, unknown> }).readers.size;
    try {
      await client.xadd(keys.mailbox('grace', 1), '*', 'n', '1');
      expect((await box.read(cursors, 10, 5_000)).get(1)).toHaveLength(1);
      // Busy: the next read finds nothing, waits its grace, and finds what came meanwhile.
      // (The read's first XREADGROUPs are written before this XADD is.)
      const next = box.read(cursors, 10, 5_000);
      await other.xadd(keys.mailbox('grace', 2), '*', 'n', '2');
      expect((await next).get(2)).toHaveLength(1);
      expect(readers()).toBe(0);
      // The read after that finds nothing (graced, then blocked 5 ms): idle now, the next read
      // blocks after one read per node, with no second one.
      expect((await box.read(cursors, 10, 5)).size).toBe(0);
      const nodes = new Set(partitions.map((p) => nodeOf(keys.mailbox('grace', p)))).size;
      const pipelines = vi.spyOn(client, 'pipeline');
      const blocked = box.read(cursors, 10, 5_000);
      await new Promise((r) => setTimeout(r, 100));
      expect(readers()).toBe(partitions.length);
      await other.xadd(keys.mailbox('grace', 3), '*', 'n', '3');
      expect((await blocked).get(3)).toHaveLength(1);
      expect(pipelines).toHaveBeenCalledTimes(nodes);
      pipelines.mockRestore();
    } finally {
      box.close();
    }
  });
});
