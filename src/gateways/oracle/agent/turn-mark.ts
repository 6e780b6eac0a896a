import type { RedisClient } from '../../../store/redis/redis.js';
import type { Keys } from '../../../store/redis/keys.js';
import { chatKeys } from '../chat-keys.js';

/**
 * How long a turn's mark holds its session without being renewed: a crashed gateway's mark
 * lapses after this; a running turn renews it every third of it.
 */
export const TURN_MS = 10 * 60 * 1000;

/** How long a request id stays spent for its session (longer than any turn). */
const ID_USED_MS = 60 * 60 * 1000;

/** Only the turn that holds the mark may renew or clear it (a lapsed turn must not clear the next one's). */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A reader that stops renewing (its gateway died) lapses after this. */
const READER_MS = 20_000;

/** Marks (or renews) a reader until Redis's now + ARGV[2] ms. */
const READ = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

/**
 * Takes the session for a turn named by a request id the session has not used before (the id is
 * what the turn's events, its mark and its start carry, so two turns must never share one). A
 * turn in flight is replaced when no client reads it any more (its reader set, KEYS[3], is
 * empty once lapsed readers are dropped): the person who left mid-turn and came back is not told
 * to wait for an answer nobody is watching. The taker reads its own turn from the start.
 * ARGV[4] is the turn the caller saw in flight ('' for none): a change since is a 'retry'.
 */
const TAKE = `if redis.call('EXISTS', KEYS[2]) == 1 then return 'reused' end
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[4] then return 'retry' end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if current ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) > 0 then return 'busy' end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[6]), ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
if current == '' then return 'ok' end
return 'replaced'`;

export type Took =
  | { took: 'ok' | 'busy' | 'reused' }
  /** The turn in flight that nobody read any more was replaced: it must be told to stop. */
  | { took: 'replaced'; displaced: string };

/**
 * One turn per session: takes the session for `requestId` (read by `readerId` from now on), or
 * says why not. A turn in flight that no client reads any more is replaced ('replaced').
 */
export async function takeTurn(
  redis: RedisClient,
  keys: Keys,
  sessionId: string,
  requestId: string,
  readerId: string,
): Promise<Took> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = (await redis.get(chatKeys.turn(keys, sessionId))) ?? '';
    const took = (await redis.eval(
      TAKE,
      4,
      chatKeys.turn(keys, sessionId),
      chatKeys.turnIdUsed(keys, sessionId, requestId),
      chatKeys.turnReaders(keys, sessionId, current || requestId),
      chatKeys.turnReaders(keys, sessionId, requestId),
      requestId,
      TURN_MS,
      ID_USED_MS,
      current,
      readerId,
      READER_MS,
    )) as 'ok' | 'busy' | 'reused' | 'replaced' | 'retry';
    if (took === 'replaced') return { took, displaced: current };
    if (took !== 'retry') return { took };
  }
  // The mark changed hands five times in a row: others are taking turns as fast as this one.
  return { took: 'busy' };
}

/**
 * Marks `readerId` as reading the turn until `signal` aborts or the returned function is called:
 * renewed every quarter of READER_MS, removed at the end (a gateway that dies leaves it to lapse).
 */
export function keepReading(
  redis: RedisClient,
  keys: Keys,
  turn: { sessionId: string; requestId: string },
  readerId: string,
  signal?: AbortSignal,
): () => void {
  const key = chatKeys.turnReaders(keys, turn.sessionId, turn.requestId);
  // Scored on Redis's clock, as TAKE reads it: a gateway's own clock may be off.
  const renew = () =>
    redis.eval(READ, 1, key, readerId, READER_MS).catch(
      () => undefined, // a missed renewal only lets the mark lapse sooner; the next one restores it
    );
  void renew();
  const timer = setInterval(() => void renew(), READER_MS / 4);
  timer.unref();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    signal?.removeEventListener('abort', stop);
    redis.zrem(key, readerId).catch(() => undefined); // it lapses by itself within READER_MS anyway
  };
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  return stop;
}

/** Renews the mark (and where the turn began) while the turn runs; the returned function stops renewing. */
export function keepTurn(redis: RedisClient, keys: Keys, sessionId: string, requestId: string): () => void {
  const timer = setInterval(() => {
    redis
      .eval(
        RENEW,
        2,
        chatKeys.turn(keys, sessionId),
        chatKeys.turnStart(keys, sessionId, requestId),
        requestId,
        TURN_MS,
      )
      .catch(() => undefined); // a missed renewal is tried again a third of TURN_MS later, long before it lapses
  }, TURN_MS / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/** Frees the session, if this turn still holds it, and forgets where the turn began. */
export async function releaseTurn(redis: RedisClient, keys: Keys, sessionId: string, requestId: string): Promise<void> {
  await Promise.all([
    redis.eval(RELEASE, 1, chatKeys.turn(keys, sessionId), requestId),
    redis.del(chatKeys.turnStart(keys, sessionId, requestId)),
  ]);
}
