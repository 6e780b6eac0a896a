import { hashSlot } from './hash-slot.js';
import type { RawEntry } from './ports.js';
import { createNodeConnection, type Cluster, type Redis } from './redis.js';
import { RedisMailboxBase, type RedisMailboxDeps } from './redis-mailbox.js';

/** A partition's blocking reads: a connection of its own to the node that serves its slot. */
interface PartitionReader {
  node: string;
  conn: Redis;
  /** Its CLIENT ID, to end a read early (asked again after a reconnection). */
  id?: number;
}

type Cursors = ReadonlyArray<{ partition: number; cursor: string }>;

/**
 * A type's mailboxes on a Redis Cluster, read by one worker. Every partition's mailbox is in a
 * slot of its own (`hearth:{voucher:p3}`), and Redis refuses a read over keys of two slots
 * (CROSSSLOT), even on one node: so no one read can cover the partitions a worker owns, as it
 * does on one Redis.
 *
 * A read first asks every partition at once without blocking, one XREADGROUP each on the shared
 * cluster connection (auto-pipelined: one write per node). Under load that finds entries, and a
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

  constructor(
    d: RedisMailboxDeps,
    private readonly cluster: Cluster,
  ) {
    super(d);
  }

  async open(): Promise<void> {
    // Readers connect at their first blocking read, to the node their slot is on then.
  }

  close(): void {
    this.closed = true;
    for (const r of this.readers.values()) r.conn.disconnect();
    this.readers.clear();
    this.wake?.();
  }

  interrupt(): void {
    this.wake?.();
  }

  async read(cursors: Cursors, count: number, blockMs: number | undefined): Promise<Map<number, RawEntry[]>> {
    const now = await this.readNow(cursors, count);
    if (now.size > 0 || blockMs === undefined || cursors.some((c) => c.cursor !== '>')) return now;
    return this.readBlocking(
      cursors.map((c) => c.partition),
      count,
      blockMs,
    );
  }

  private async readNow(cursors: Cursors, count: number): Promise<Map<number, RawEntry[]>> {
    const answers = await Promise.all(
      cursors.map((c) => this.readGroup(this.cluster, [this.partition(c.partition).stream], [c.cursor], count)),
    );
    const out = new Map<number, RawEntry[]>();
    cursors.forEach((c, i) => {
      const entries = answers[i]?.[0]?.[1] ?? [];
      if (entries.length > 0) out.set(c.partition, entries);
    });
    return out;
  }

  private async readBlocking(partitions: number[], count: number, blockMs: number): Promise<Map<number, RawEntry[]>> {
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
    await Promise.all(readers.map((r) => this.unblock(r)));
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

  /** Ends a blocked read from the node's shared connection (best effort: it ends within its block time anyway). */
  private async unblock(r: PartitionReader): Promise<void> {
    if (r.id === undefined) return;
    const node = this.cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === r.node);
    await node?.client('UNBLOCK', r.id).catch(() => undefined);
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
