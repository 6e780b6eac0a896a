import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClusterMailbox } from '../../../../src/store/redis/cluster-mailbox.js';
import { DeferredAcks } from '../../../../src/store/redis/deferred-acks.js';
import { hashSlot } from '../../../../src/store/redis/hash-slot.js';
import { bellOf, createKeys } from '../../../../src/store/redis/keys.js';
import { MailboxWriter } from '../../../../src/store/redis/mailbox-writer.js';
import { ringCommand, sendPerNode } from '../../../../src/store/redis/node-batch.js';
import { NodePipe } from '../../../../src/store/redis/node-pipe.js';
import { postEachOnce } from '../../../../src/store/redis/post-once.js';
import {
  connectRedis,
  createNodeConnection,
  createRedis,
  isCluster,
  type Cluster,
  type RedisClient,
} from '../../../../src/store/redis/redis.js';
import { createLogger } from '../../../../src/log.js';
import { onCluster } from '../../../support/isolated.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';

/**
 * How the cluster path batches its commands: one write per node on the runtime's own
 * connections, a redirected command (MOVED, ASK) sent again where it points, one key's commands
 * in order across a move, acknowledgements carried by the next read, and a waiting worker woken
 * by its mailboxes' bells. The cluster is this file's own (slots move), so it runs in the
 * one-Redis pass.
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

  it('sends one write per node, answers in order, each key in the order given', async () => {
    const streams = Array.from({ length: 12 }, (_, p) => mailbox(p));
    const nodes = new Set(streams.map(nodeOf));
    expect(nodes.size).toBeGreaterThan(1);
    const pipelines = vi.spyOn(NodePipe.prototype, 'send');
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
    const pipelines = vi.spyOn(NodePipe.prototype, 'send');
    const [movedId, stayedId] = (await Promise.all(
      sendPerNode(client, [
        { key: moving, name: 'xadd', args: [moving, '*', 'n', 'moved'] },
        { key: staying, name: 'xadd', args: [staying, '*', 'n', 'stayed'] },
      ]),
    )) as string[];
    // The pair's write, then the moved one alone, to its new node.
    expect(pipelines).toHaveBeenCalledTimes(2);
    expect(pipelines.mock.calls[1]![0].map((c) => c.args[0])).toEqual(['xadd']);
    pipelines.mockRestore();
    expect(movedId).toMatch(/^\d+-\d+$/);
    expect(stayedId).toMatch(/^\d+-\d+$/);
    expect((await cluster.cli(to, 'XLEN', moving)).trim()).toBe('1');
    expect((await cluster.cli(from, 'XLEN', staying)).trim()).toBe('1');
  });

  it("keeps one key's commands in order when the map learns a move while some are on their way", async () => {
    const moving = mailbox(300);
    await client.xadd(moving, '*', 'n', 'first');
    const slot = hashSlot(moving);
    const from = await cluster.masterOf(slot);
    const to = (await cluster.masters()).find((m) => m !== from)!;
    const stale = client.slots[slot]!;
    await cluster.moveSlot(slot, to);
    client.slots[slot] = stale;
    // Turn 1 goes where the stale map says; before its answer (MOVED) comes, the map learns the
    // new owner and turn 2 is sent. Routed by the map, turn 2 would land before turn 1.
    const turn1 = sendPerNode(
      client,
      [1, 2, 3].map((n) => ({ key: moving, name: 'xadd', args: [moving, '*', 'n', `a${n}`] })),
    );
    client.slots[slot] = [`127.0.0.1:${to}`];
    const turn2 = sendPerNode(
      client,
      [1, 2, 3].map((n) => ({ key: moving, name: 'xadd', args: [moving, '*', 'n', `b${n}`] })),
    );
    await Promise.all([...turn1, ...turn2]);
    const written = await client.xrange(moving, '-', '+');
    expect(written.map(([, f]) => f[1])).toEqual(['first', 'a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
  });

  /**
   * Leaves a key's slot half-migrated to another master, the key already moved (its old node
   * answers ASK for it, the client's map still names the old node); `finish` gives the slot to
   * the new node everywhere.
   */
  async function migrateKeyOnly(key: string): Promise<{ to: number; finish: () => Promise<void> }> {
    const slot = hashSlot(key);
    const from = await cluster.masterOf(slot);
    const to = (await cluster.masters()).find((m) => m !== from)!;
    const idOf = async (port: number) => (await cluster.cli(port, 'CLUSTER', 'MYID')).trim();
    const [fromId, toId] = [await idOf(from), await idOf(to)];
    await cluster.cli(to, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId);
    await cluster.cli(from, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId);
    await cluster.cli(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', key);
    return {
      to,
      finish: async () => {
        for (const port of await cluster.masters())
          await cluster.cli(port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', toId);
      },
    };
  }

  it('follows ASK while a slot migrates: ASKING, then the command, on the importing node', async () => {
    const migrating = mailbox(400);
    await client.xadd(migrating, '*', 'n', 'before');
    const { to, finish } = await migrateKeyOnly(migrating);
    try {
      // The map still says the old node; the key is on the new one: the old node answers ASK.
      const sends = vi.spyOn(NodePipe.prototype, 'send');
      const [id] = (await Promise.all(
        sendPerNode(client, [{ key: migrating, name: 'xadd', args: [migrating, '*', 'n', 'during'] }]),
      )) as string[];
      expect(sends.mock.calls.map((c) => c[0].map((x) => x.args[0]))).toEqual([['xadd'], ['ASKING', 'xadd']]);
      sends.mockRestore();
      expect(id).toMatch(/^\d+-\d+$/);
    } finally {
      await finish();
    }
    expect((await cluster.cli(to, 'XRANGE', migrating, '-', '+')).split('\n')).toEqual(
      expect.arrayContaining(['before', 'during']),
    );
  });

  it("sends a key's later command straight behind an ASK it followed: ASKING, then the command, in order", async () => {
    const migrating = mailbox(450);
    await client.xadd(migrating, '*', 'n', 'before');
    const { to, finish } = await migrateKeyOnly(migrating);
    // Called with each pipe as `this`, below.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const original = NodePipe.prototype.send;
    const sends = vi.spyOn(NodePipe.prototype, 'send');
    try {
      const later: Array<Promise<unknown>> = [];
      let sent = false;
      // The moment the first command follows its ASK, the key's next command is sent: it goes
      // where the first went, with ASKING, not to the old node (nor ahead of the first).
      sends.mockImplementation(function (this: NodePipe, batch) {
        original.call(this, batch);
        if (sent || batch[0]?.args[0] !== 'ASKING') return;
        sent = true;
        later.push(...sendPerNode(client, [{ key: migrating, name: 'xadd', args: [migrating, '*', 'n', 'second'] }]));
      });
      const first = sendPerNode(client, [{ key: migrating, name: 'xadd', args: [migrating, '*', 'n', 'first'] }]);
      await Promise.all(first);
      await vi.waitFor(() => expect(later).toHaveLength(1));
      await Promise.all(later);
      expect(sends.mock.calls.map((c) => c[0].map((x) => x.args[0]))).toEqual([
        ['xadd'],
        ['ASKING', 'xadd'],
        ['ASKING', 'xadd'],
      ]);
    } finally {
      sends.mockRestore();
      await finish();
    }
    const written = (await cluster.cli(to, 'XRANGE', migrating, '-', '+')).split('\n');
    expect(written.filter((l) => ['before', 'first', 'second'].includes(l))).toEqual(['before', 'first', 'second']);
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

  describe('a waiting worker and its bells', () => {
    const log = createLogger('error', 'batches-test');
    const partitions = [0, 1, 2, 3];
    const cursors = partitions.map((partition) => ({ partition, cursor: '>' }));
    let box: ClusterMailbox;

    beforeAll(async () => {
      for (const p of partitions) {
        await client.xgroup('CREATE', keys.mailbox('bells', p), group, '$', 'MKSTREAM').catch(() => undefined);
      }
      box = new ClusterMailbox({ type: 'bells', keys, redis: client, consumer: 'w', log }, client);
      // The first read listens to the bells; nothing is there yet.
      expect((await box.read(cursors, 10, 50)).size).toBe(0);
    });

    afterAll(() => box?.close());

    async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
      const started = Date.now();
      const value = await p;
      return { value, ms: Date.now() - started };
    }

    it("wakes at a gateway's write (its bell), long before its block time", async () => {
      if (!isCluster(other)) throw new Error('expected a cluster client');
      const writer = new MailboxWriter(other);
      const waiting = timed(box.read(cursors, 10, 5_000));
      await new Promise((r) => setTimeout(r, 100));
      await writer.write(keys.mailbox('bells', 2), ['n', 'rung']);
      const { value, ms } = await waiting;
      expect(value.get(2)?.map(([, f]) => f?.[1])).toEqual(['rung']);
      expect(ms).toBeLessThan(2_000);
    });

    it("wakes at an outbox tell's post (its bell), long before its block time", async () => {
      const waiting = timed(box.read(cursors, 10, 5_000));
      await new Promise((r) => setTimeout(r, 100));
      const mailbox = keys.mailbox('bells', 0);
      const [posted] = await postEachOnce(
        other,
        [{ stream: mailbox, mark: keys.told('bells', 0, 'tell-1'), fields: ['n', 'told'] }],
        60,
      );
      expect(posted).toMatch(/^\d+-\d+$/);
      const { value, ms } = await waiting;
      expect(value.get(0)?.map(([, f]) => f?.[1])).toEqual(['told']);
      expect(ms).toBeLessThan(2_000);
    });

    it("rings a mailbox's bell once per turn, with its newest entry's id, after the entries are answered", async () => {
      if (!isCluster(other)) throw new Error('expected a cluster client');
      const stream = keys.mailbox('bells', 3);
      const bell = bellOf(stream);
      const watcher = createNodeConnection(client, client.slots[hashSlot(bell)]![0]!, 'bell-watch');
      const heard: Array<{ message: string; idsKnown: boolean }> = [];
      let ids: string[] | undefined;
      try {
        await watcher.connect();
        watcher.on('smessage', (_: string, message: string) => heard.push({ message, idsKnown: ids !== undefined }));
        await watcher.ssubscribe(bell);
        const writer = new MailboxWriter(other);
        const written = Promise.all(['a', 'b', 'c'].map((n) => writer.write(stream, ['n', n])));
        written.then((got) => (ids = got)).catch(() => undefined);
        await written;
        await vi.waitFor(() => expect(heard.length).toBeGreaterThan(0));
        await new Promise((r) => setTimeout(r, 50));
        expect(heard).toEqual([{ message: ids![2], idsKnown: true }]);
      } finally {
        watcher.disconnect();
      }
      // Taken here, so the next tests start from empty mailboxes.
      expect((await box.read(cursors, 10, 50)).get(3)?.length).toBe(3);
    });

    it('does not read again for a bell of entries it has already read (a late bell of another node)', async () => {
      if (!isCluster(other)) throw new Error('expected a cluster client');
      const stream = keys.mailbox('bells', 2);
      const waiting = timed(box.read(cursors, 10, 5_000));
      await new Promise((r) => setTimeout(r, 100));
      const sends = vi.spyOn(NodePipe.prototype, 'send');
      try {
        await sendPerNode(client, [ringCommand(stream, '1-0')])[0];
        await new Promise((r) => setTimeout(r, 200));
        const reads = () => sends.mock.calls.filter(([batch]) => batch.some((c) => c.args[0] === 'xreadgroup'));
        expect(reads()).toHaveLength(0);
        await new MailboxWriter(other).write(stream, ['n', 'new']);
        const { value } = await waiting;
        expect(value.get(2)?.map(([, f]) => f?.[1])).toEqual(['new']);
        expect(reads().length).toBeGreaterThan(0); // one batch per node
      } finally {
        sends.mockRestore();
      }
    });

    it('finds an entry whose bell never rang at its block time, not later', async () => {
      const waiting = timed(box.read(cursors, 10, 400));
      await new Promise((r) => setTimeout(r, 50));
      await other.xadd(keys.mailbox('bells', 3), '*', 'n', 'silent');
      const { value, ms } = await waiting;
      expect(value.get(3)?.map(([, f]) => f?.[1])).toEqual(['silent']);
      expect(ms).toBeGreaterThanOrEqual(350);
      expect(ms).toBeLessThan(2_000);
    });

    it('hears its bells again after its listening connection is killed, and reads what came meanwhile', async () => {
      const bell = bellOf(keys.mailbox('bells', 1));
      const node = client.slots[hashSlot(bell)]![0]!;
      const port = Number(node.slice(node.lastIndexOf(':') + 1));
      const waiting = timed(box.read(cursors, 10, 5_000));
      await new Promise((r) => setTimeout(r, 100));
      const killed = await cluster.cli(port, 'CLIENT', 'KILL', 'TYPE', 'pubsub');
      expect(Number(killed.trim())).toBeGreaterThan(0);
      // Written while the listener is away, with no bell: found when it is back and rings.
      await other.xadd(keys.mailbox('bells', 1), '*', 'n', 'meanwhile');
      const { value, ms } = await waiting;
      expect(value.get(1)?.map(([, f]) => f?.[1])).toEqual(['meanwhile']);
      expect(ms).toBeLessThan(2_500);
      // And its bells ring again.
      const again = timed(box.read(cursors, 10, 5_000));
      await new Promise((r) => setTimeout(r, 100));
      if (!isCluster(other)) throw new Error('expected a cluster client');
      await new MailboxWriter(other).write(keys.mailbox('bells', 1), ['n', 'after']);
      const second = await again;
      expect(second.value.get(1)?.map(([, f]) => f?.[1])).toEqual(['after']);
      expect(second.ms).toBeLessThan(2_000);
    });

    it('ends the next wait at once when interrupted between waits', async () => {
      box.interrupt();
      const { value, ms } = await timed(box.read(cursors, 10, 5_000));
      expect(value.size).toBe(0);
      expect(ms).toBeLessThan(1_000);
    });

    it('keeps one listening connection per node, not one per partition', async () => {
      let listening = 0;
      for (const port of await cluster.masters()) {
        const clients = await cluster.cli(port, 'CLIENT', 'LIST', 'TYPE', 'pubsub');
        listening += clients.split('\n').filter((l) => l.includes('name=w:bells:bells')).length;
      }
      const nodes = new Set(partitions.map((p) => nodeOf(keys.mailbox('bells', p)))).size;
      expect(listening).toBe(nodes);
    });
  });
});
