import type { TestProject } from 'vitest/node';

/**
 * Real Redis and Postgres for the integration tests: from REDIS_URL / DATABASE_URL when set
 * (CI, or your own services), otherwise started with testcontainers (needs a Docker engine).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<unknown>> = [];
  let redisUrl = process.env.REDIS_URL;
  let databaseUrl = process.env.DATABASE_URL;
  if (!redisUrl) {
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
