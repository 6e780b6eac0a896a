import type { TestProject } from 'vitest/node';

/**
 * Real Redis and Postgres for the integration tests: from REDIS_URL / DATABASE_URL when set
 * (CI, or your own services), otherwise started with testcontainers (needs a Docker engine).
 *
 * With HEARTH_TEST_REDIS=cluster the tests run on a Redis Cluster instead: the one whose seed
 * nodes REDIS_CLUSTER_NODES names (`host:port,host:port`), or else one started here on loopback
 * (3 masters, 3 replicas; needs `redis-server` and `redis-cli`) and stopped after the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<unknown>> = [];
  let redisUrl = process.env.REDIS_URL;
  let databaseUrl = process.env.DATABASE_URL;
  if (process.env.HEARTH_TEST_REDIS === 'cluster') {
    let seeds = process.env.REDIS_CLUSTER_NODES;
    if (!seeds) {
      const { startRedisCluster } = await import('./redis-cluster.js');
      const cluster = await startRedisCluster({ nodeTimeoutMs: 60_000 });
      stops.push(() => cluster.stop());
      seeds = cluster.seeds;
    }
    redisUrl = `redis+cluster://${seeds}`;
  } else if (!redisUrl) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const redis = await new RedisContainer('redis:7-alpine').start();
    stops.push(() => redis.stop());
    redisUrl = redis.getConnectionUrl();
  }
  if (!databaseUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:16-alpine').start();
    stops.push(() => pg.stop());
    databaseUrl = pg.getConnectionUri();
  }
  project.provide('redisUrl', redisUrl);
  project.provide('databaseUrl', databaseUrl);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    databaseUrl: string;
  }
}
