import { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import { StartupError } from '../../errors/index.js';

export type { Redis };

/**
 * A Redis connection that fails fast while disconnected (no offline queue), so a request
 * during an outage gets a 503 at once instead of hanging; it reconnects in the background
 * with capped back-off.
 */
export function createRedis(url: string, name: string, opts: { blocking?: boolean; log?: Logger } = {}): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A command whose reply was lost is never sent again: a resent XADD would post a message
    // twice, a resent XREADGROUP would hide the first batch in the pending list.
    autoResendUnfulfilledCommands: false,
    // A blackholed connection fails commands after 2 s instead of hanging (not for blocking reads).
    ...(opts.blocking ? {} : { commandTimeout: 2_000 }),
    lazyConnect: true,
    // Commands issued in the same tick (many partitions settling at once) go out in one write.
    // Not on a blocking connection: it carries one read at a time, which auto-pipelining would
    // hold until the event loop's check phase and wrap in a pipeline of one.
    enableAutoPipelining: !opts.blocking,
    // Scripts are the runtime's own batches (a round's settles, a turn's mailbox writes), sent
    // when they are complete: held for the check phase, a round's replies waited behind the
    // worker's next read, and a gateway's asks for a second turn of its event loop.
    autoPipeliningIgnoredCommands: ['evalsha', 'eval'],
    connectTimeout: 3_000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  });
  if (opts.log) reportOutages(redis, name, opts.log);
  return redis;
}

/**
 * Redis outages in the JSON log, instead of ioredis's own "[ioredis] Unhandled error event" on
 * stderr at every reconnection attempt (a line every 2 s per connection, outside the JSON logs):
 * one warn line when a connection that was up is lost (a reset, or a clean close such as
 * `CLIENT KILL`), one more whenever the cause changes while it stays down (a password changed,
 * `max number of clients`, `LOADING`), and one info line when it is back. A connection that has
 * never been up says so once per cause, too (a worker's reading connections connect in the
 * background). The commands that fail meanwhile are reported where they fail, with their context.
 */
function reportOutages(redis: Redis, name: string, log: Logger): void {
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let lastError: string | undefined;
  let reported: string | undefined;
  redis.on('error', (err: Error) => {
    lastError = err.message;
    // While up, the 'reconnecting' that follows reports the loss with this cause.
    if (state === 'up' || reported === err.message) return;
    reported = err.message;
    const what = state === 'down' ? 'Redis still unreachable' : 'Redis not reachable yet; retrying';
    log.warn({ connection: name, err: err.message }, what);
  });
  redis.on('reconnecting', () => {
    if (state !== 'up') return;
    state = 'down';
    reported = lastError;
    log.warn({ connection: name, err: lastError ?? 'connection closed' }, 'Redis connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (state === 'down') log.info({ connection: name }, 'Redis connection back');
    state = 'up';
    lastError = undefined;
    reported = undefined;
  });
}

/** Connects, or throws one clear line naming the cause and the remedy. */
export async function connectRedis(redis: Redis, url: string): Promise<Redis> {
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    const cause = err instanceof Error ? err.message : String(err);
    throw new StartupError(
      `Redis connection failed (${cause}): Redis is not running or REDIS_URL (${redactUrl(url)}) does not match; start Redis and correct the variable`,
    );
  }
}

/** Hides a password in a connection URL before it is printed. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable url>';
  }
}
