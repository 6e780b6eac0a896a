import type { Redis } from 'ioredis';
import type { Keys } from '../actors/runtime/keys.js';

/**
 * How long a turn's mark holds its session without being renewed: a crashed gateway's mark
 * lapses after this; a running turn renews it every third of it.
 */
export const TURN_MS = 10 * 60 * 1000;

/** How long a request id stays spent for its session (longer than any turn). */
const ID_USED_MS = 60 * 60 * 1000;

/**
 * Takes the session for a turn named by a request id the session has not used before: the id is
 * what the turn's events, its mark and its start carry, so two turns must never share one.
 */
const TAKE = `if redis.call('EXISTS', KEYS[2]) == 1 then return 'reused' end
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 'busy' end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 'ok'`;

/** Only the turn that holds the mark may renew or clear it (a lapsed turn must not clear the next one's). */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** One turn per session: takes the session for `requestId`, or says why not. */
export async function takeTurn(
  redis: Redis,
  keys: Keys,
  sessionId: string,
  requestId: string,
): Promise<'ok' | 'busy' | 'reused'> {
  const took = await redis.eval(
    TAKE,
    2,
    keys.chatTurn(sessionId),
    keys.chatTurnIdUsed(sessionId, requestId),
    requestId,
    TURN_MS,
    ID_USED_MS,
  );
  return took as 'ok' | 'busy' | 'reused';
}

/** Renews the mark (and where the turn began) while the turn runs; the returned function stops renewing. */
export function keepTurn(redis: Redis, keys: Keys, sessionId: string, requestId: string): () => void {
  const timer = setInterval(() => {
    redis
      .eval(RENEW, 2, keys.chatTurn(sessionId), keys.chatTurnStart(sessionId, requestId), requestId, TURN_MS)
      .catch(() => undefined);
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
