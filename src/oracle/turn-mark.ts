import type { Redis } from 'ioredis';
import type { Keys } from '../actors/runtime/keys.js';

/**
 * How long a turn's mark holds its session without being renewed: a crashed gateway's mark
 * lapses after this; a running turn renews it every third of it.
 */
export const TURN_MS = 10 * 60 * 1000;

/** Only the turn that holds the mark may renew or clear it (a lapsed turn must not clear the next one's). */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** One turn per session: takes the session for `requestId`, or says another turn holds it. */
export async function takeTurn(redis: Redis, keys: Keys, sessionId: string, requestId: string): Promise<boolean> {
  return (await redis.set(keys.chatTurn(sessionId), requestId, 'PX', TURN_MS, 'NX')) === 'OK';
}

/** Renews the mark while the turn runs; the returned function stops renewing. */
export function keepTurn(redis: Redis, keys: Keys, sessionId: string, requestId: string): () => void {
  const timer = setInterval(() => {
    redis.eval(RENEW, 1, keys.chatTurn(sessionId), requestId, TURN_MS).catch(() => undefined);
  }, TURN_MS / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/** Frees the session, if this turn still holds it, and forgets where the turn began. */
export async function releaseTurn(redis: Redis, keys: Keys, sessionId: string, requestId: string): Promise<void> {
  await Promise.all([
    redis.eval(RELEASE, 1, keys.chatTurn(sessionId), requestId),
    redis.del(keys.chatTurnStart(sessionId, requestId)),
  ]);
}
