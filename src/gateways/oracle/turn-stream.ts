import type { Redis } from 'ioredis';
import type { Keys } from '../../actors/runtime/keys.js';
import { readChatEvents, type ChatEvent, type ChatEventHub } from '../../oracle/chat-events.js';
import type { Reply } from '../http/reply.js';

/** The wire reference's heartbeat: a comment every 15 s keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/** The wire reference's SSE headers (`X-Request-Id` is added by the server). */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
  'Access-Control-Expose-Headers': 'X-Request-Id',
};

export interface TurnStreamDeps {
  /** Overrides the 15 s heartbeat (ORACLE_SSE_HEARTBEAT_SECONDS). */
  heartbeatMs?: number;
  hub: ChatEventHub;
  redis: Redis;
  keys: Keys;
}

/** Redis stream ids compare as (milliseconds, sequence). */
function isAfter(id: string, than: string): boolean {
  const [am = 0, as = 0] = id.split('-').map(Number);
  const [bm = 0, bs = 0] = than.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

/**
 * An SSE reply carrying one turn's events (those with its request id) after `from`, up to its
 * `done`. The POST that starts the turn streams what follows its start, in the wire reference's
 * frames exactly. A resumed stream (`replay`) first sends what the session's Redis stream already
 * holds, then follows; its frames carry `id:` so a client can resume again with Last-Event-ID.
 * `start` runs once the follower is in place: no event of the turn can slip past it.
 */
export function turnStream(
  d: TurnStreamDeps,
  t: { sessionId: string; requestId: string; from: string },
  o: { replay: boolean; start?: () => void },
): Reply {
  const frame = (e: ChatEvent) =>
    `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n${o.replay ? `id: ${e.id}\n` : ''}\n`;
  return {
    status: 200,
    headers: SSE_HEADERS,
    stream: (write, signal) =>
      new Promise<void>((resolve) => {
        let last = t.from;
        let finished = false;
        const heartbeat = setInterval(() => write(': heartbeat\n\n'), d.heartbeatMs ?? HEARTBEAT_MS);
        const finish = () => {
          if (finished) return;
          finished = true;
          clearInterval(heartbeat);
          stop?.();
          resolve();
        };
        const deliver = (e: ChatEvent) => {
          if (finished || e.requestId !== t.requestId || !isAfter(e.id, last)) return;
          last = e.id;
          write(frame(e));
          if (e.event === 'done') finish();
        };
        let stop: (() => void) | undefined;
        signal.addEventListener('abort', finish, { once: true });
        if (!o.replay) {
          stop = d.hub.follow(t.sessionId, t.from, deliver);
          o.start?.();
          return;
        }
        // What is already there, then what comes: the follower starts where the history ended.
        readChatEvents(d.redis, d.keys, t.sessionId, t.from).then(
          (events) => {
            const until = events.at(-1)?.id ?? t.from;
            for (const e of events) deliver(e);
            if (!finished) stop = d.hub.follow(t.sessionId, until, deliver);
          },
          () => finish(),
        );
      }),
  };
}
