import { DeferredAcks } from './deferred-acks.js';
import { hashSlot } from './hash-slot.js';
import { sendPerNode } from './node-batch.js';
import type { OutgoingReply, RawEntry } from './ports.js';
import { createNodeConnection, type Cluster, type Redis } from './redis.js';
import { RedisMailboxBase, type RedisMailboxDeps } from './redis-mailbox.js';
import { replyPerStream } from './settle-script.js';

/** A partition's blocking reads: a connection of its own to the node that serves its slot. */
interface PartitionReader {
  node: string;
  conn: Redis;
  /** Its CLIENT ID, to end a read early (asked again after a reconnection). */
  id?: number;
}

/**
 * How long acknowledgements wait for a read to carry them: about a round under load, short
 * enough that a worker going idle leaves nothing pending for long.
 */
const ACK_DELAY_MS = 5;

/**
 * After a read that found entries finds none, one more read this much later before blocking.
 * Blocking costs a read per partition, each on its own connection, and a CLIENT UNBLOCK per
 * node after (no read spans slots): under load that was most of a worker's writes, as the
 * worker drains every mailbox in a round and then waits for the askers to ask again. The second
 * read is one write per node and, under load, finds their next asks. An entry that comes during
 * the grace waits for its end (1 ms at most); an idle worker blocks at once.
 */
const IDLE_GRACE_MS = 1;

type Cursors = ReadonlyArray<{ partition: number; cursor: string }>;

/**
 * A type's mailboxes on a Redis Cluster, read by one worker. Every partition's mailbox is in a
 * slot of its own (`hearth:{voucher:p3}`), and Redis refuses a read over keys of two slots
 * (CROSSSLOT), even on one node: so no one read can cover the partitions a worker owns, as it
 * does on one Redis.
 *
 * A read first asks every partition at once without blocking, one XREADGROUP each on the shared
 * cluster connection, in one write per node (node-batch.ts). Under load that finds entries, and a
 * round holds what every partition had, as on one Redis. Only when all are empty does it block:
 * one XREADGROUP BLOCK per partition, each on a connection of its own to the node of the
 * partition's slot. The first that answers with entries ends the others (CLIENT UNBLOCK, sent to
 * their node), and the read returns once every one has answered, so no partition is ever read by
 * two reads at once (an entry delivered to a read still out would otherwise reach the worker
 * after a later one of its partition, and pass for a redelivery). A worker keeps one idle
 * connection per partition it owns.
 *
 * A partition whose slot has moved (resharding, failover) answers MOVED or fails: its reader is
 * dropped, the slot map refreshed, and the read fails, so the worker reads the pending history
 * of every partition again (what a failed read was served is in it) and then finds the new node.
 */
export class ClusterMailbox extends RedisMailboxBase {
  private readonly readers = new Map<number, PartitionReader>();
  private wake: (() => void) | undefined;
  private closed = false;
  /** Whether the last read found entries (the mailboxes are busy: see IDLE_GRACE_MS). */
  private busy = false;

  private readonly acks: DeferredAcks;

  constructor(
    d: RedisMailboxDeps,
    private readonly cluster: Cluster,
  ) {
    super(d);
    this.acks = new DeferredAcks(cluster, d.keys.group, ACK_DELAY_MS);
  }

  /**
   * The replies at once (one script call per reply stream), and the acknowledgements after them:
   * a round's, which follow its replies, with the next read (see deferred-acks.ts); a write-behind
   * flush's, which have no replies and are waited for by the worker before it reads again, at
   * once.
   */
  override async settleMany(
    batches: ReadonlyArray<{ partition: number; ids: readonly string[]; replies: readonly OutgoingReply[] }>,
  ): Promise<number> {
    const replies = batches.flatMap((b) => b.replies);
    const acks = batches.map((b) => ({ stream: this.partition(b.partition).stream, ids: b.ids }));
    if (replies.length === 0) {
      await this.acks.now(acks);
      return 0;
    }
    const streams = [...new Set(replies.map((r) => r.stream))];
    const refused = await replyPerStream(this.cluster, this.d.keys.group, streams, replies);
    await this.acks.add(acks);
    return refused;
  }

  async open(): Promise<void> {
    // Readers connect at their first blocking read, to the node their slot is on then.
  }

  close(): void {
    this.closed = true;
    this.acks.flush();
    for (const r of this.readers.values()) r.conn.disconnect();
    this.readers.clear();
    this.wake?.();
  }

  interrupt(): void {
    this.wake?.();
  }

  async read(cursors: Cursors, count: number, blockMs: number | undefined): Promise<Map<number, RawEntry[]>> {
    const now = await this.readNow(cursors, count);
    const busy = this.busy;
    this.busy = now.size > 0;
    if (now.size > 0 || blockMs === undefined || cursors.some((c) => c.cursor !== '>')) return now;
    if (busy && (await this.grace(Math.min(IDLE_GRACE_MS, blockMs)))) {
      const again = await this.readNow(cursors, count);
      this.busy = again.size > 0;
      if (again.size > 0) return again;
    }
    return this.readBlocking(
      cursors.map((c) => c.partition),
      count,
      blockMs,
    );
  }

  /** Waits `ms` unless interrupted or closed; whether it waited it out. */
  private async grace(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const waited = await new Promise<boolean>((resolve) => {
      this.wake = () => resolve(false);
      timer = setTimeout(() => resolve(true), ms);
    });
    clearTimeout(timer);
    this.wake = undefined;
    return waited && !this.closed;
  }

  /**
   * Every partition at once, without blocking: an XREADGROUP each, led by the acknowledgements
   * the last rounds left (deferred-acks.ts), in one write per node.
   */
  private async readNow(cursors: Cursors, count: number): Promise<Map<number, RawEntry[]>> {
    const acks = this.acks.take();
    const reads = cursors.map((c) => {
      const stream = this.partition(c.partition).stream;
      return { key: stream, name: 'xreadgroup', args: this.readGroupArgs([stream], [c.cursor], count) };
    });
    const sent = sendPerNode(this.cluster, [...acks.commands, ...reads]);
    acks.settle(sent.slice(0, acks.commands.length));
    const answers = (await Promise.all(sent.slice(acks.commands.length))) as Array<Array<[string, RawEntry[]]> | null>;
    const out = new Map<number, RawEntry[]>();
    cursors.forEach((c, i) => {
      const entries = answers[i]?.[0]?.[1] ?? [];
      if (entries.length > 0) out.set(c.partition, entries);
    });
    return out;
  }

  private async readBlocking(partitions: number[], count: number, blockMs: number): Promise<Map<number, RawEntry[]>> {
    // No read follows until one of these ends: the acknowledgements go now.
    this.acks.flush();
    this.dropReadersBut(new Set(partitions));
    const readers = await Promise.all(partitions.map((p) => this.readerFor(p)));
    if (this.closed) return new Map();
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.wake = wake;
    const reads = readers.map(async (r, i) => {
      const res = await this.readGroup(r.conn, [this.partition(partitions[i]!).stream], ['>'], count, blockMs);
      const entries = res?.[0]?.[1] ?? [];
      if (entries.length > 0) wake();
      return entries;
    });
    void Promise.allSettled(reads).then(wake);
    await woken;
    this.wake = undefined;
    // Every read still blocked ends now; one already served answers with its entries.
    await this.unblock(readers);
    const answers = await Promise.allSettled(reads);
    const out = new Map<number, RawEntry[]>();
    let failure: Error | undefined;
    answers.forEach((a, i) => {
      const p = partitions[i]!;
      if (a.status === 'fulfilled') {
        if (a.value.length > 0) out.set(p, a.value);
        return;
      }
      failure ??= a.reason instanceof Error ? a.reason : new Error(`partition read failed: ${String(a.reason)}`);
      this.dropReader(p);
    });
    if (failure !== undefined) {
      this.cluster.refreshSlotsCache();
      // A read that failed may still have been served: its entries are pending with this worker,
      // unseen. The round fails, so the worker reads every partition's pending history again
      // (the entries in hand too) before anything new: read on from '>' instead, and the entries
      // after them would be applied first.
      if (!this.closed) throw failure;
    }
    return out;
  }

  /** The partition's reader, on the node its slot is on now (a new one when it has moved). */
  private async readerFor(partition: number): Promise<PartitionReader> {
    const stream = this.partition(partition).stream;
    const node = this.cluster.slots[hashSlot(stream)]?.[0];
    if (node === undefined) throw new Error(`Redis Cluster: no node known for ${stream} yet`);
    let r = this.readers.get(partition);
    if (r?.node !== node) {
      this.dropReader(partition);
      const conn = createNodeConnection(this.cluster, node, `${this.d.consumer}:${this.d.type}:p${partition}`);
      const made: PartitionReader = { node, conn };
      // A new connection has a new id: ask again before the next read.
      conn.on('ready', () => (made.id = undefined));
      conn.on('error', () => undefined); // its reads report failures; the shared connection logs outages
      this.readers.set(partition, made);
      r = made;
      try {
        await conn.connect();
      } catch (err) {
        this.dropReader(partition);
        throw err;
      }
    }
    r.id ??= await r.conn.client('ID');
    return r;
  }

  /**
   * Ends the readers' blocked reads, from each node's shared connection, one write per node
   * (best effort: a read ends within its block time anyway).
   */
  private async unblock(readers: readonly PartitionReader[]): Promise<void> {
    const masters = new Map(this.cluster.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n]));
    const byNode = new Map<string, number[]>();
    for (const r of readers) {
      if (r.id === undefined) continue;
      let ids = byNode.get(r.node);
      if (!ids) byNode.set(r.node, (ids = []));
      ids.push(r.id);
    }
    await Promise.all(
      [...byNode].map(async ([node, ids]) => {
        const conn = masters.get(node);
        if (!conn) return;
        const pipeline = conn.pipeline();
        for (const id of ids) pipeline.client('UNBLOCK', id);
        await pipeline.exec().catch(() => undefined);
      }),
    );
  }

  private dropReader(partition: number): void {
    this.readers.get(partition)?.conn.disconnect();
    this.readers.delete(partition);
  }

  /** Readers of partitions this worker no longer reads go. */
  private dropReadersBut(keep: ReadonlySet<number>): void {
    for (const p of [...this.readers.keys()]) if (!keep.has(p)) this.dropReader(p);
  }
}
