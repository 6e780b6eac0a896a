import type { ChatEvent, ChatEventHub } from './agent/chat-events.js';
import type { RedisClient } from '../../store/redis/redis.js';
import type { Keys } from '../../store/redis/keys.js';
import { keepReading } from './agent/turn-mark.js';
// The wire reference's SSE headers (`X-Request-Id` is added by the server).
import { SSE_HEADERS, type Reply } from '../http/reply.js';

/** The wire reference's heartbeat: a comment every 15 s keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

export interface TurnStreamDeps {
  /** Overrides the 15 s heartbeat (ORACLE_SSE_HEARTBEAT_SECONDS). */
  heartbeatMs?: number;
  hub: ChatEventHub;
  redis: RedisClient;
  keys: Keys;
}

/**
 * An SSE reply carrying one turn's events (those with its request id) after `from`, up to its
 * `done`, whenever the stream starts: the gateway's event hub hands a late follower what it
 * missed. The POST that starts the turn sends the wire reference's frames exactly; a followed
 * stream (`withIds`) adds `id:` so a client can resume with Last-Event-ID.
 */
export function turnStream(
  d: TurnStreamDeps,
  t: { sessionId: string; requestId: string; from: string },
  /** `readerId`: the stream counts as a reader of the turn while it is open (see takeOrReplaceTurn). */
  o: { withIds: boolean; readerId: string },
): Reply {
  const frame = (e: ChatEvent) =>
    `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n${o.withIds ? `id: ${e.id}\n` : ''}\n`;
  return {
    status: 200,
    headers: SSE_HEADERS,
    stream: (write, signal) =>
      new Promise<void>((resolve) => {
        const heartbeat = setInterval(() => write(': heartbeat\n\n'), d.heartbeatMs ?? HEARTBEAT_MS);
        const stopReading = keepReading(d.redis, d.keys, t, o.readerId);
        const finish = () => {
          clearInterval(heartbeat);
          stopReading();
          stop();
          resolve();
        };
        const stop = d.hub.follow(t.sessionId, t.from, (e) => {
          if (e.requestId !== t.requestId) return;
          write(frame(e));
          if (e.event === 'done') finish();
        });
        signal.addEventListener('abort', finish, { once: true });
      }),
  };
}
