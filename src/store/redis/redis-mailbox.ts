import { isCluster, type Redis, type RedisClient } from './redis.js';
import type { Logger } from '../../log.js';
import type { Keys } from './keys.js';
import { MailboxOps } from './mailbox-ops.js';
import type { Mailbox, OutgoingReply, RawEntry } from '../../actors/runtime/ports.js';
import { ackAndReply } from './settle-script.js';

export interface RedisMailboxDeps {
  type: string;
  keys: Keys;
  /** The worker's shared (auto-pipelined) connection: settles, claims, trims. */
  redis: RedisClient;
  /** This worker: the consumer name in every partition's group. */
  consumer: string;
  log: Logger;
}

/**
 * What the Redis adapters of {@link Mailbox} share, on one Redis or on a cluster: the
 * partitions' mailboxes (claims, trims, dead letters: each on keys of one slot) and the settles.
 * How entries are read is each adapter's own.
 */
export abstract class RedisMailboxBase implements Mailbox {
  private readonly partitions = new Map<number, MailboxOps>();
  protected readonly streamToPartition = new Map<string, number>();

  constructor(protected readonly d: RedisMailboxDeps) {}

  partition(p: number): MailboxOps {
    let ops = this.partitions.get(p);
    if (!ops) {
      const { keys, type } = this.d;
      ops = new MailboxOps(this.d.redis, {
        partition: p,
        stream: keys.mailbox(type, p),
        group: keys.group,
        consumer: this.d.consumer,
        strandedKey: keys.stranded(type, p),
        attemptsKey: keys.attempts(type, p),
        deadStream: keys.deadLetter(type, p),
        // One Redis only: a cluster never had the old names (they would sit in other slots).
        ...(isCluster(this.d.redis) ? {} : { legacy: keys.legacy(type, p) }),
        onLegacyLeft: (from, to) =>
          this.d.log.warn({ from, to }, 'an old mailbox key holds entries beside its new one: move them by hand'),
      });
      this.partitions.set(p, ops);
      this.streamToPartition.set(ops.stream, p);
    }
    return ops;
  }

  /** One XREADGROUP of this consumer on `conn`, blocking only when `blockMs` is given. */
  protected readGroup(
    conn: RedisClient,
    streams: readonly string[],
    ids: readonly string[],
    count: number,
    blockMs?: number,
  ): Promise<Array<[string, RawEntry[]]> | null> {
    return conn.call('XREADGROUP', ...this.readGroupArgs(streams, ids, count, blockMs)) as Promise<Array<
      [string, RawEntry[]]
    > | null>;
  }

  /** XREADGROUP's arguments for this consumer. */
  protected readGroupArgs(
    streams: readonly string[],
    ids: readonly string[],
    count: number,
    blockMs?: number,
  ): Array<string | number> {
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    return ['GROUP', this.d.keys.group, this.d.consumer, 'COUNT', count, ...block, 'STREAMS', ...streams, ...ids];
  }

  abstract read(
    cursors: ReadonlyArray<{ partition: number; cursor: string }>,
    count: number,
    blockMs: number | undefined,
  ): Promise<Map<number, RawEntry[]>>;
  abstract interrupt(): void;
  abstract open(): Promise<void>;
  abstract close(): void;

  /**
   * One script for the acknowledgements and replies of every partition (see settle-script.ts;
   * on a cluster, one per key).
   */
  settleMany(
    batches: ReadonlyArray<{ partition: number; ids: readonly string[]; replies: readonly OutgoingReply[] }>,
  ): Promise<number> {
    if (batches.length === 0) return Promise.resolve(0);
    return ackAndReply(
      this.d.redis,
      this.d.keys.group,
      batches.map((b) => ({ stream: this.partition(b.partition).stream, ids: b.ids })),
      batches.flatMap((b) => b.replies),
    );
  }
}

/**
 * A type's mailboxes on one Redis (`keys.mailbox(type, p)`), read by one worker: one
 * XREADGROUP over all the partitions it owns, on a connection of its own so the read can block,
 * and ended early with CLIENT UNBLOCK from the shared connection.
 */
export class RedisMailbox extends RedisMailboxBase {
  private blockedId: number | undefined;

  constructor(
    d: RedisMailboxDeps,
    /** A connection of its own: XREADGROUP BLOCK holds it. */
    private readonly blocking: Redis,
  ) {
    super(d);
    // A new connection has a new id: ask again before the next read.
    blocking.on('ready', () => (this.blockedId = undefined));
  }

  async open(): Promise<void> {
    // A failed connect is retried by ioredis; the first read then fails, and the worker's round
    // retry logs it.
    await this.blocking.connect().catch(() => undefined);
  }

  close(): void {
    this.blocking.disconnect();
  }

  interrupt(): void {
    // Best effort: a read that is not woken still ends within its block time.
    if (this.blockedId !== undefined) void this.d.redis.client('UNBLOCK', this.blockedId).catch(() => undefined);
  }

  async read(
    cursors: ReadonlyArray<{ partition: number; cursor: string }>,
    count: number,
    blockMs: number | undefined,
  ): Promise<Map<number, RawEntry[]>> {
    this.blockedId ??= await this.blocking.client('ID');
    const streams = cursors.map((c) => this.partition(c.partition).stream);
    const ids = cursors.map((c) => c.cursor);
    const block = ids.every((id) => id === '>') ? blockMs : undefined;
    const res = await this.readGroup(this.blocking, streams, ids, count, block);
    const out = new Map<number, RawEntry[]>();
    // A pending-history read answers every stream named, empty or not: the empty ones are left out.
    for (const [stream, entries] of res ?? []) {
      if (entries.length > 0) out.set(this.streamToPartition.get(stream)!, entries);
    }
    return out;
  }
}
