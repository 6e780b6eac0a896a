import type { RedisClient } from '../../../store/redis/redis.js';
import { ChatEventLane, type ChatEvent } from './chat-event-lane.js';
import type { Keys } from '../../../store/redis/keys.js';
import type { Logger } from '../../../log.js';
import { chatKeys, chatShardOf } from '../chat-keys.js';

export type { ChatEvent };

/** Events kept per session stream (a turn writes tens to a few thousand). */
const MAXLEN = 5_000;
/**
 * A session's stream outlives its last event by a day: long enough to resume any turn's stream,
 * and a session left alone (or deleted) does not keep its events in Redis for ever. The
 * transcript itself lives in PostgreSQL.
 */
const STREAM_TTL_MS = 24 * 60 * 60 * 1000;

/** Writes turn events to the session's Redis stream. */
export async function emitChatEvent(
  redis: RedisClient,
  keys: Keys,
  sessionId: string,
  requestId: string,
  event: string,
  data: Record<string, unknown>,
): Promise<void> {
  const stream = chatKeys.events(keys, sessionId);
  // Issued together, so they leave in one write (the connection pipelines a tick's commands).
  await Promise.all([
    redis.xadd(
      stream,
      'MAXLEN',
      '~',
      MAXLEN,
      '*',
      'requestId',
      requestId,
      'event',
      event,
      'data',
      JSON.stringify(data),
    ),
    redis.pexpire(stream, STREAM_TTL_MS),
  ]);
}

/**
 * Asks the turn `requestId` to stop, from any process: an `abort` event on the session's stream,
 * which the turn follows. Its own request id keeps it out of the turn's SSE frames.
 */
export async function requestAbort(
  redis: RedisClient,
  keys: Keys,
  sessionId: string,
  requestId: string,
): Promise<void> {
  await emitChatEvent(redis, keys, sessionId, `abort:${requestId}`, 'abort', { requestId });
}

/** Whether `e` asks the turn `requestId` to stop. */
export const isAbortOf = (e: ChatEvent, requestId: string): boolean =>
  e.event === 'abort' && e.data.requestId === requestId;

/** The id after which a follower sees only what comes next. */
export async function lastEventId(redis: RedisClient, keys: Keys, sessionId: string): Promise<string> {
  const [last] = await redis.xrevrange(chatKeys.events(keys, sessionId), '+', '-', 'COUNT', 1);
  return last?.[0] ?? '0';
}

/**
 * Every SSE stream and socket room of this gateway follows its session's events here. On one
 * Redis, one lane (one blocking connection) reads every followed stream at once. On a cluster a
 * read over keys of two slots is refused, so a session's keys sit in one of 16 chat shards
 * (`{chat:s<n>}`, keys.ts) and each shard with followers gets a lane of its own: at most 16
 * blocking connections per gateway, however many sessions it streams.
 */
export class ChatEventHub {
  private readonly lanes = new Map<number, ChatEventLane>();

  constructor(
    /** A new blocking connection, not yet connected (a lane connects it). */
    private readonly connect: (name: string) => RedisClient,
    private readonly keys: Keys,
    private readonly log: Logger,
    /** One lane per chat shard (a cluster), or one for all. */
    private readonly perShard: boolean,
  ) {}

  /** Calls `listener` with each event of `sessionId` after `from`; returns the unsubscribe. */
  follow(sessionId: string, from: string, listener: (e: ChatEvent) => void): () => void {
    const shard = this.perShard ? chatShardOf(sessionId) : 0;
    let lane = this.lanes.get(shard);
    if (!lane) {
      lane = new ChatEventLane(this.connect(`chat-events:${shard}`), this.keys, this.log);
      this.lanes.set(shard, lane);
    }
    return lane.follow(sessionId, from, listener);
  }

  async close(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.close()));
  }
}
