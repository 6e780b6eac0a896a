import { fileURLToPath } from 'node:url';
import { ActorClient } from '../../src/store/redis/actor-client.js';
import { createKeys } from '../../src/store/redis/keys.js';
import { connectRedis, createRedis } from '../../src/store/redis/redis.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { startChild, type Child } from '../lib/child.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';

const mainScript = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** Starts a real hearth worker process (ROLE=worker) on the benchmark's prefix and schema. */
export async function startWorker(
  env: BenchEnv,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Child> {
  const worker = startChild(
    mainScript,
    {
      ROLE: 'worker',
      DATABASE_URL: env.databaseUrl,
      DATABASE_SCHEMA: env.schema,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.prefix,
      PIN_ENCRYPTION_KEY: env.pinKey,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      ...extra,
    },
    (l) => l.msg === 'partitions taken',
    nodeArgs,
  );
  await worker.ready;
  // Let the first tick take every partition before measuring.
  await new Promise((r) => setTimeout(r, 500));
  return worker;
}

/** An ActorClient in this (the load generator's) process. */
export async function startClient(
  env: BenchEnv,
  partitions = 16,
): Promise<{ client: ActorClient; close(): Promise<void> }> {
  const redis = await connectRedis(createRedis(env.redisUrl, 'bench-client'), env.redisUrl);
  const reader = await connectRedis(createRedis(env.redisUrl, 'bench-replies', { blocking: true }), env.redisUrl);
  const client = new ActorClient(
    redis,
    reader,
    createKeys(env.prefix),
    `bench-${process.pid}`,
    { defaultTimeoutMs: 10_000, maxInFlight: 100_000, partitionsOf: () => partitions },
    createLogger('error', 'bench'),
    createMetrics(),
  );
  await client.start();
  return {
    client,
    async close() {
      await client.close();
      redis.disconnect();
    },
  };
}

/** ask() round trips through the echo actor (commit-before-reply: one snapshot write per ask). */
export async function echoAsk(env: BenchEnv, client: ActorClient, levels: number[]): Promise<LevelResult[]> {
  const results: LevelResult[] = [];
  for (const c of levels) {
    results.push(
      await closedLoop(c, env.seconds * 1000, (w, i) =>
        client.ask('echo', `asker-${c}-${w}`, { kind: 'echo', payload: i }),
      ),
    );
  }
  return results;
}
