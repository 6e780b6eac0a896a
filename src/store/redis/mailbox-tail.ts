import { decodeEntry, type MailboxEntry } from '../../actors/runtime/entry-codec.js';
import type { RedisClient } from './redis.js';

/** A mailbox entry as a tail sees it: which partition, when it was written (from its id). */
export interface TailedEntry {
  partition: number;
  at: string;
  entry: MailboxEntry;
}

/**
 * Follows partitions' mailbox streams from now on, the `redis-cli XREAD BLOCK` habit, for the
 * `hearth tail` command and the console's Tail page. Reads only (no consumer group): the owners'
 * deliveries are untouched. On a cluster the streams must share a slot: one partition.
 */
export class MailboxTail {
  private readonly cursors: string[];

  constructor(
    private readonly redis: RedisClient,
    private readonly streams: readonly string[],
    private readonly partitions: readonly number[],
  ) {
    this.cursors = streams.map(() => '$');
  }

  /** The entries written since the last call, waiting up to `blockMs` for the first. */
  async next(blockMs: number): Promise<TailedEntry[]> {
    const res = (await this.redis.call(
      'XREAD',
      'BLOCK',
      blockMs,
      'STREAMS',
      ...this.streams,
      ...this.cursors,
    )) as Array<[string, Array<[string, string[]]>]> | null;
    const out: TailedEntry[] = [];
    for (const [stream, entries] of res ?? []) {
      const i = this.streams.indexOf(stream);
      for (const [id, fields] of entries) {
        this.cursors[i] = id;
        const entry = decodeEntry(id, fields);
        if (entry)
          out.push({ partition: this.partitions[i]!, at: new Date(Number(id.split('-')[0])).toISOString(), entry });
      }
    }
    return out;
  }
}
