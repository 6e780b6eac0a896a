import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { parseRedisTarget } from '../../src/common/redis-target.js';
import { inject } from 'vitest';
import { createKeys, type Keys } from '../../src/store/redis/keys.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createSql, type Sql } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { testPinKey } from './test-pin-key.js';

/**
 * Whether this run is on a Redis Cluster (HEARTH_TEST_REDIS=cluster, see global-setup.ts): a
 * test of one connection's own wire behaviour (its socket, a proxy in front of it) is skipped.
 */
export const onCluster = process.env.HEARTH_TEST_REDIS === 'cluster';

export { testPinKey } from './test-pin-key.js';

export interface Isolated {
  prefix: string;
  schema: string;
  redisUrl: string;
  databaseUrl: string;
  keys: Keys;
  /** A plain connection for assertions (with an offline queue, unlike the service's). */
  redis: Redis | Cluster;
  /** Whether the tests run on a Redis Cluster (HEARTH_TEST_REDIS=cluster). */
  cluster: boolean;
  /** The keys that match a pattern, on every master of a cluster (KEYS asks one node). */
  keysMatching(pattern: string): Promise<string[]>;
  sql: Sql;
  log: Logger;
  /** The environment a hearth process of this test file would get. */
  env(overrides?: Record<string, string>): Record<string, string>;
  config(overrides?: Record<string, string>): Config;
  cleanup(): Promise<void>;
}

/**
 * A Redis key prefix and a Postgres schema of this test file's own, migrated, so that files run
 * in parallel without seeing each other's data. `cleanup()` drops both.
 */
export async function isolated(): Promise<Isolated> {
  const id = randomBytes(4).toString('hex');
  const prefix = `t${id}`;
  const schema = `t_${id}`;
  const redisUrl = inject('redisUrl');
  const databaseUrl = inject('databaseUrl');
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'error', 'test');
  const sql = createSql({ url: databaseUrl, schema, max: 4 });
  await migrate(sql, schema, log);
  const redis = plainClient(redisUrl);
  const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'error',
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LEASE_TTL_MS: '1500',
    PIN_ENCRYPTION_KEY: testPinKey,
    // A loaded CI machine (two cores, a dozen files, six Redis Cluster nodes) has left the watch's
    // probe unanswered for 500 ms (the default), and a file then saw 503s it was not testing. The
    // files that test the watch's timing (postgres-outage, postgres-failover) set 500 themselves.
    DATABASE_PROBE_TIMEOUT_MS: '2000',
    ...overrides,
  });
  return {
    prefix,
    schema,
    redisUrl,
    databaseUrl,
    keys: createKeys(prefix),
    redis,
    cluster: redis instanceof Cluster,
    keysMatching: (pattern) => keysMatching(redis, pattern),
    sql,
    log,
    env,
    config: (overrides) => loadConfig(env(overrides)),
    async cleanup() {
      await unlinkMatching(redis, `${prefix}:*`);
      redis.disconnect();
      await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await sql.end({ timeout: 5 });
    },
  };
}

/** A client with ioredis's defaults (offline queue, retries): the right kind for the URL. */
function plainClient(url: string): Redis | Cluster {
  const target = parseRedisTarget(url);
  return target.kind === 'single' ? new Redis(url) : new Cluster(target.nodes);
}

/** Every key that matches, from each master of a cluster (SCAN covers one node). */
async function keysMatching(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, found] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys;
}

async function unlinkMatching(redis: Redis | Cluster, pattern: string): Promise<void> {
  // One key per UNLINK: keys of several slots in one command are refused on a cluster.
  await Promise.all((await keysMatching(redis, pattern)).map((k) => redis.unlink(k)));
}

/** Polls until `check` returns true or `timeoutMs` passes; returns the last value it saw. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}

/** The `n` column of a one-row count query. */
export async function countOf(query: PromiseLike<ReadonlyArray<{ n: number }>>): Promise<number> {
  const rows = await query;
  return rows[0]?.n ?? Number.NaN;
}
