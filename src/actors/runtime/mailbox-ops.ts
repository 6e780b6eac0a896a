import type { Redis } from 'ioredis';
import { decodeEntry, encodeReply, type MailboxEntry } from './entry-codec.js';
import type { OutgoingReply, PoisonMessage } from './apply-batch.js';

export type RawEntry = [string, string[] | null];

/**
 * One XREADGROUP over many partition mailboxes: `'>'` for new entries, or an id for this
 * consumer's pending history after it. Blocks only when every cursor is `'>'`. Returns the
 * entries per stream; a stream with nothing to read is absent.
 */
export async function readMany(
  blocking: Redis,
  group: string,
  consumer: string,
  cursors: ReadonlyArray<{ stream: string; cursor: string }>,
  count: number,
  blockMs: number,
): Promise<Map<string, RawEntry[]>> {
  const streams = cursors.map((c) => c.stream);
  const ids = cursors.map((c) => c.cursor);
  const block = ids.every((id) => id === '>') ? ['BLOCK', blockMs] : [];
  const res = (await blocking.call(
    'XREADGROUP',
    'GROUP',
    group,
    consumer,
    'COUNT',
    count,
    ...block,
    'STREAMS',
    ...streams,
    ...ids,
  )) as Array<[string, RawEntry[]]> | null;
  return new Map((res ?? []).map(([stream, entries]) => [stream, entries]));
}

/** Raw Redis calls on one partition mailbox; the worker loop composes them. */
export class MailboxOps {
  constructor(
    private readonly redis: Redis,
    readonly stream: string,
    readonly group: string,
    readonly consumer: string,
  ) {}

  /** Creates the consumer group at the start of the stream, so entries sent before it exist are read. */
  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.stream, this.group, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
    }
  }

  /**
   * Moves every pending entry of the group (a previous owner's included) to this consumer.
   * JUSTID leaves the delivery counter alone: only the read that follows counts as a delivery.
   */
  async claimAll(): Promise<number> {
    let cursor = '0-0';
    let claimed = 0;
    do {
      const res = (await this.redis.xautoclaim(
        this.stream,
        this.group,
        this.consumer,
        0,
        cursor,
        'COUNT',
        1000,
        'JUSTID',
      )) as [string, unknown[]];
      cursor = res[0];
      claimed += res[1].length;
    } while (cursor !== '0-0');
    return claimed;
  }

  /** Forgets consumers of earlier owners that no longer hold anything. */
  async dropIdleConsumers(): Promise<void> {
    const consumers = (await this.redis.xinfo('CONSUMERS', this.stream, this.group)) as unknown[][];
    for (const c of consumers) {
      const info = fieldMap(c);
      if (info.get('name') !== this.consumer && Number(info.get('pending')) === 0) {
        await this.redis.xgroup('DELCONSUMER', this.stream, this.group, String(info.get('name')));
      }
    }
  }

  /** Delivery counts of this consumer's pending entries in [first, last]. */
  async deliveries(first: string, last: string): Promise<Map<string, number>> {
    const rows = (await this.redis.xpending(this.stream, this.group, first, last, 10_000, this.consumer)) as Array<
      [string, string, number, number]
    >;
    return new Map(rows.map(([id, , , count]) => [id, count]));
  }

  /**
   * Acknowledges a batch, sends its replies and dead letters. Separate commands on an
   * auto-pipelined connection: the settles of every partition finishing in the same tick leave
   * in one write.
   */
  async settle(
    ids: readonly string[],
    replies: readonly OutgoingReply[],
    dead: readonly PoisonMessage[],
    deadStream: string,
    worker: string,
  ): Promise<void> {
    const sent: Array<Promise<unknown>> = [];
    for (const d of dead) {
      sent.push(this.redis.xadd(deadStream, 'MAXLEN', '~', 10_000, '*', ...deadLetterFields(d, this.stream, worker)));
    }
    if (ids.length > 0) sent.push(this.redis.xack(this.stream, this.group, ...ids));
    for (const r of replies) sent.push(sendReply(this.redis, r));
    await Promise.all(sent);
  }

  /**
   * Trims entries that every reader is done with: below both the oldest pending entry and the
   * last one delivered to the group, so nothing unread or unacknowledged is ever dropped.
   */
  async trim(): Promise<void> {
    const [summary, groups] = await Promise.all([
      this.redis.xpending(this.stream, this.group) as Promise<[number, string | null, string | null, unknown]>,
      this.redis.xinfo('GROUPS', this.stream) as Promise<unknown[][]>,
    ]);
    const group = groups.map(fieldMap).find((g) => g.get('name') === this.group);
    const delivered = group?.get('last-delivered-id');
    const minId = summary[1] ?? (typeof delivered === 'string' ? nextId(delivered) : undefined);
    if (minId) await this.redis.xtrim(this.stream, 'MINID', '~', minId);
  }
}

/** Replies go with NOMKSTREAM: a gateway that has gone away leaves no stream behind. */
function sendReply(redis: Redis, r: OutgoingReply): Promise<unknown> {
  return redis.xadd(r.stream, 'NOMKSTREAM', 'MAXLEN', '~', 10_000, '*', ...encodeReply(r));
}

function deadLetterFields(d: PoisonMessage, stream: string, worker: string): string[] {
  const e: MailboxEntry = d.entry;
  return [
    'stream',
    stream,
    'id',
    e.id,
    'key',
    e.key,
    'kind',
    e.kind,
    'body',
    e.body,
    'reply',
    e.reply,
    'corr',
    e.corr,
    'error',
    d.error,
    'worker',
    worker,
  ];
}

function fieldMap(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(String(flat[i]), flat[i + 1]);
  return m;
}

/** The id right after `id`, so MINID keeps `id` itself out of the kept range only when delivered. */
function nextId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${ms}-${BigInt(seq) + 1n}`;
}

export { decodeEntry };
