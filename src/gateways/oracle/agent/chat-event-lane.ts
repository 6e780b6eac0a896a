import type { RedisClient } from '../../../store/redis/redis.js';
import type { Keys } from '../../../store/redis/keys.js';
import { Backoff, sleep } from '../../../actors/runtime/backoff.js';
import { compareStreamIds } from '../../../actors/runtime/stream-id.js';
import type { Logger } from '../../../log.js';
import { chatKeys } from '../chat-keys.js';

/** One event of a turn, as it sits in `hearth:{chat:s<shard>}:<sessionId>:events` (readable with redis-cli). */
export interface ChatEvent {
  id: string;
  requestId: string;
  event: string;
  data: Record<string, unknown>;
}

/** How long one multi-stream read blocks; new followers join at the next read. */
const BLOCK_MS = 100;

type Listener = (e: ChatEvent) => void;

/** One listener: it sees each event after `last` once, from reads issued after it joined. */
interface Follower {
  listener: Listener;
  last: string;
  /** The first read whose events it may see (one issued after it joined, from its cursor). */
  fromRead: number;
}

/** A followed stream: where the next read starts, and the read that last moved it back. */
interface Followed {
  cursor: string;
  rewoundAt: number;
  followers: Set<Follower>;
}

/**
 * The SSE streams of this gateway (all of them on one Redis, one shard's on a cluster) follow
 * their sessions' event streams through ONE blocking connection: each read asks Redis for all
 * followed streams at once and hands the events out. So any gateway can serve any session's
 * stream, whichever process runs the turn.
 *
 * Each listener gets exactly the events after its own `from`, in order, whoever else follows the
 * session here: one that joins behind the shared cursor moves it back (the others skip what they
 * have seen), one that joins ahead of it skips what comes before its `from`.
 */
export class ChatEventLane {
  /** By stream key (computed once per session, not on every read). */
  private readonly followers = new Map<string, Followed>();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  /** Reads issued so far (the one in flight, if any, is number `reads`). */
  private reads = 0;

  constructor(
    private readonly reader: RedisClient,
    private readonly keys: Keys,
    private readonly log: Logger,
  ) {}

  /** Calls `listener` with each event of `sessionId` after `from`; returns the unsubscribe. */
  follow(sessionId: string, from: string, listener: Listener): () => void {
    const stream = chatKeys.events(this.keys, sessionId);
    const follower: Follower = { listener, last: from, fromRead: this.reads + 1 };
    let f = this.followers.get(stream);
    if (!f) {
      f = { cursor: from, rewoundAt: this.reads, followers: new Set() };
      this.followers.set(stream, f);
    } else {
      // The read in flight (if any) is not this listener's: the next read starts no later than
      // where that one did, or than `from`, so nothing after `from` passes it by.
      if (compareStreamIds(from, f.cursor) < 0) f.cursor = from;
      f.rewoundAt = this.reads;
    }
    f.followers.add(follower);
    this.loop ??= this.run();
    const followed = f;
    return () => {
      followed.followers.delete(follower);
      if (followed.followers.size === 0 && this.followers.get(stream) === followed) this.followers.delete(stream);
    };
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.reader.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff();
    while (!this.abort.signal.aborted) {
      const streams = [...this.followers.keys()];
      if (streams.length === 0) {
        await sleep(BLOCK_MS, this.abort.signal);
        continue;
      }
      try {
        // Made lazily, with the lane: connected at its first read.
        if (this.reader.status === 'wait') await this.reader.connect();
        const read = ++this.reads;
        const res = await this.reader.xread(
          'COUNT',
          1000,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...streams,
          ...streams.map((k) => this.followers.get(k)!.cursor),
        );
        for (const [stream, entries] of res ?? []) {
          const f = this.followers.get(stream);
          if (!f) continue;
          // Joined while this read was out: the cursor stays, the next read covers the newcomer.
          const advance = f.rewoundAt < read;
          for (const [id, fields] of entries) {
            if (advance) f.cursor = id;
            const e = decode(id, fields);
            if (!e) continue;
            for (const x of f.followers) {
              if (x.fromRead > read || compareStreamIds(id, x.last) <= 0) continue;
              x.last = id;
              try {
                x.listener(e);
              } catch (err) {
                // One listener's fault must not cost the others this event.
                this.log.warn(
                  { err: err instanceof Error ? err.message : String(err), stream },
                  'chat event listener failed',
                );
              }
            }
          }
        }
        backoff.reset();
      } catch (err) {
        if (this.abort.signal.aborted) break;
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'chat event read failed');
        await sleep(backoff.next(), this.abort.signal);
      }
    }
  }
}

function decode(id: string, fields: string[]): ChatEvent | undefined {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) m.set(fields[i]!, fields[i + 1]!);
  try {
    return {
      id,
      requestId: m.get('requestId') ?? '',
      event: m.get('event') ?? '',
      data: JSON.parse(m.get('data') ?? '{}') as Record<string, unknown>,
    };
  } catch {
    return undefined;
  }
}
