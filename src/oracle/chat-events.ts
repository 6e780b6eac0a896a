import type { Redis } from 'ioredis';
import type { Keys } from '../actors/runtime/keys.js';
import { Backoff, sleep } from '../actors/runtime/backoff.js';
import type { Logger } from '../log.js';

/** One event of a turn, as it sits in `hearth:events:chat:<sessionId>` (readable with redis-cli). */
export interface ChatEvent {
  id: string;
  requestId: string;
  event: string;
  data: Record<string, unknown>;
}

/** Events kept per session stream (a turn writes tens to a few thousand). */
const MAXLEN = 5_000;
/** How long one multi-stream read blocks; new followers join at the next read. */
const BLOCK_MS = 100;

/** Writes turn events to the session's Redis stream. */
export async function emitChatEvent(
  redis: Redis,
  keys: Keys,
  sessionId: string,
  requestId: string,
  event: string,
  data: Record<string, unknown>,
): Promise<void> {
  await redis.xadd(
    keys.chatEvents(sessionId),
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
  );
}

/**
 * Asks the turn `requestId` to stop, from any process: an `abort` event on the session's stream,
 * which the turn follows. Its own request id keeps it out of the turn's SSE frames.
 */
export async function requestAbort(redis: Redis, keys: Keys, sessionId: string, requestId: string): Promise<void> {
  await emitChatEvent(redis, keys, sessionId, `abort:${requestId}`, 'abort', { requestId });
}

/** Whether `e` asks the turn `requestId` to stop. */
export const isAbortOf = (e: ChatEvent, requestId: string): boolean =>
  e.event === 'abort' && e.data.requestId === requestId;

/** The id after which a follower sees only what comes next. */
export async function lastEventId(redis: Redis, keys: Keys, sessionId: string): Promise<string> {
  const [last] = await redis.xrevrange(keys.chatEvents(sessionId), '+', '-', 'COUNT', 1);
  return last?.[0] ?? '0';
}

/** The events of a session's stream after `from` (exclusive), oldest first. */
export async function readChatEvents(redis: Redis, keys: Keys, sessionId: string, from: string): Promise<ChatEvent[]> {
  const entries = await redis.xrange(keys.chatEvents(sessionId), `(${from}`, '+');
  return entries.flatMap(([id, fields]) => decode(id, fields) ?? []);
}

type Listener = (e: ChatEvent) => void;

/**
 * Every SSE stream of this gateway follows its session's event stream through ONE blocking
 * connection: each read asks Redis for all followed streams at once and hands the events out.
 * So any gateway can serve any session's stream, whichever process runs the turn.
 */
export class ChatEventHub {
  /** By stream key (computed once per session, not on every read). */
  private readonly followers = new Map<string, { cursor: string; listeners: Set<Listener> }>();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly reader: Redis,
    private readonly keys: Keys,
    private readonly log: Logger,
  ) {}

  /** Calls `listener` with each event of `sessionId` after `from`; returns the unsubscribe. */
  follow(sessionId: string, from: string, listener: Listener): () => void {
    const stream = this.keys.chatEvents(sessionId);
    const f = this.followers.get(stream) ?? { cursor: from, listeners: new Set<Listener>() };
    f.listeners.add(listener);
    this.followers.set(stream, f);
    this.loop ??= this.run();
    return () => {
      f.listeners.delete(listener);
      if (f.listeners.size === 0) this.followers.delete(stream);
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
          for (const [id, fields] of entries) {
            f.cursor = id;
            const e = decode(id, fields);
            if (e) for (const l of f.listeners) l(e);
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
