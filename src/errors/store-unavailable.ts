/**
 * Whether an error says a store (PostgreSQL, Redis) cannot be reached, as opposed to a bug: the
 * caller is then told 503 UNAVAILABLE and to retry, not 500. Recognised:
 * - socket errors (refused, reset, timed out, host unknown);
 * - postgres.js connection codes (`CONNECTION_CLOSED`, `CONNECT_TIMEOUT`, …) and PostgreSQL's
 *   SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now),
 *   53300 (too many connections) and 25006 (a read-only transaction: the connection reached a
 *   standby, or a primary being demoted, during a failover; the driver drops that connection,
 *   scripts/patch-postgres.mjs, and the retry finds the new primary);
 * - ioredis giving up on a command (`MaxRetriesPerRequestError`, a closed or unwritable
 *   connection), and a Redis Cluster that is not ready, has lost a slot's master (CLUSTERDOWN,
 *   until a replica takes over) or is moving a slot (TRYAGAIN); and MOVED or ASK reaching the
 *   caller, which ioredis does not follow for an auto-pipelined batch that mixes commands (its
 *   slot map is stale for a moment after a failover or a resharding: the retry finds the slot).
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (socketCodes.has(code) || code.startsWith('CONNECTION_') || code === 'CONNECT_TIMEOUT') return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === '53300' || code === '25006') return true;
  }
  if (err.name === 'MaxRetriesPerRequestError') return true;
  return redirection.test(err.message) || redisGone.some((text) => err.message.includes(text));
}

const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

const redisGone = [
  'Connection is closed.',
  "Stream isn't writeable",
  'Reached the max retries per request limit',
  'Command timed out', // ioredis's commandTimeout: a Redis that stopped answering
  "Cluster isn't ready",
  'CLUSTERDOWN',
  'TRYAGAIN',
  'Failed to refresh slots cache',
  'None of startup nodes is available',
  'Too many Cluster redirections',
];

/** A cluster redirection: `MOVED <slot> <host:port>` or `ASK <slot> <host:port>`. */
const redirection = /^(MOVED|ASK) \d+ \S+$/;
