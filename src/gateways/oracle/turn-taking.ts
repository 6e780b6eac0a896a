import type { RedisClient } from '../../store/redis/redis.js';
import type { Keys } from '../../store/redis/keys.js';
import { AppError } from '../../errors/index.js';
import { requestAbort, type ChatEventHub } from './agent/chat-events.js';
import { releaseTurn, takeTurn } from './agent/turn-mark.js';

/** How long a new message waits for the turn it replaced to finish before it starts. */
const REPLACED_TURN_WAIT_MS = 5_000;

export interface TurnTakingDeps {
  redis: RedisClient;
  keys: Keys;
  hub: ChatEventHub;
}

/**
 * Takes the session for a new turn. The rule (docs/oracle.md): one turn per session; a new
 * message from the owner replaces the turn in flight unless a client is still reading that turn
 * (its SSE stream is open, or its request still waits for the JSON answer), which is a 409. The
 * replaced turn is aborted (its stream ends with `done`) and its partial answer joins the
 * transcript before the new message does: the new turn starts once that `done` is written, or
 * after REPLACED_TURN_WAIT_MS when the old turn's gateway is gone.
 */
export async function takeOrReplaceTurn(
  d: TurnTakingDeps,
  turn: { sessionId: string; requestId: string; from: string },
): Promise<void> {
  const { sessionId, requestId } = turn;
  const took = await takeTurn(d.redis, d.keys, sessionId, requestId, requestId);
  if (took.took === 'busy') {
    throw new AppError(
      'CHAT_TURN_IN_FLIGHT',
      'this session is answering a message that a client is still reading; abort it (POST /messages/abort) or wait for its done',
    );
  }
  if (took.took === 'reused') {
    throw new AppError(
      'CHAT_REQUEST_ID_REUSED',
      'this X-Request-Id already named a turn of this session; send a new one, or none',
    );
  }
  if (took.took !== 'replaced') return;
  try {
    await replace(d, sessionId, took.displaced, turn.from);
  } catch (err) {
    // The session was taken for this turn, which will not run: free it, or it blocks the next.
    await releaseTurn(d.redis, d.keys, sessionId, requestId).catch(() => undefined); // lapses with TURN_MS
    throw err;
  }
}

async function replace(d: TurnTakingDeps, sessionId: string, displaced: string, from: string): Promise<void> {
  let stop: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    stop = d.hub.follow(sessionId, from, (e) => {
      if (e.requestId === displaced && e.event === 'done') resolve();
    });
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await requestAbort(d.redis, d.keys, sessionId, displaced);
    await Promise.race([finished, new Promise((resolve) => (timer = setTimeout(resolve, REPLACED_TURN_WAIT_MS)))]);
  } finally {
    clearTimeout(timer);
    stop();
  }
}
