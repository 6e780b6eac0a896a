import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';

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
