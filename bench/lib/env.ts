import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import postgres from 'postgres';

/** Where a benchmark run's data goes: its own Redis prefix and Postgres schema, dropped after. */
export interface BenchEnv {
  redisUrl: string;
  databaseUrl: string;
  prefix: string;
  schema: string;
  /** PIN_ENCRYPTION_KEY of the run's processes (random: a bench is never a deployment). */
  pinKey: string;
  seconds: number;
  machine: string;
}

export function benchEnv(): BenchEnv {
  const id = randomBytes(3).toString('hex');
  const cpu = cpus();
  return {
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    prefix: `bench${id}`,
    schema: `bench_${id}`,
    pinKey: randomBytes(16).toString('hex'),
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    machine: `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
  };
}

/**
 * Drops what a run left: its Redis keys (none to drop without `redisUrl`: a cluster the run
 * started and stops), its schema, and the durable floor's table beside it.
 */
export async function cleanup(
  env: Pick<BenchEnv, 'databaseUrl' | 'prefix' | 'schema'> & { redisUrl: string | undefined },
): Promise<void> {
  if (env.redisUrl !== undefined) {
    const redis = new Redis(env.redisUrl);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${env.prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => undefined });
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${env.schema}" CASCADE`);
  // The durable floor's table lives beside the schema (its responder starts before the migrations).
  await sql.unsafe(`DROP TABLE IF EXISTS "${env.schema}_floor"`);
  await sql.end();
}
