import { ActorClient } from '../../src/store/redis/actor-client.js';
import { encodeEntry } from '../../src/actors/runtime/entry-codec.js';
import { compareStreamIds } from '../../src/actors/runtime/stream-id.js';
import { connectRedis, createRedis } from '../../src/store/redis/redis.js';
import { redisRuntimeAdapters } from '../../src/store/redis/runtime-adapters.js';
import { Runtime, type RuntimeOptions } from '../../src/actors/runtime/runtime.js';
import type { ActorDefinition } from '../../src/actors/runtime/types.js';
import { counterActor } from '../../src/actors/counter/index.js';
import { echoActor } from '../../src/actors/echo/index.js';
import { processId } from '../../src/process-id.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import type { Sql } from '../../src/store/db.js';
import { createPgSnapshotStore } from '../../src/store/snapshot-store.js';
import type { Isolated } from './isolated.js';

export const testRuntimeOptions: RuntimeOptions = {
  partitions: 4,
  leaseTtlMs: 1_500,
  batch: 256,
  blockMs: 500,
  maxDeliveries: 3,
  cacheSize: 10_000,
  trimEveryMs: 60_000,
};

/** A worker runtime in this process, on the test file's prefix and schema. */
export async function startRuntime(
  env: Isolated,
  opts: {
    actors?: readonly ActorDefinition[];
    options?: Partial<RuntimeOptions>;
    workerId?: string;
    metrics?: Metrics;
    /** The pool its snapshots go through (default the test file's own). */
    sql?: Sql;
    clock?: () => Date;
  } = {},
): Promise<Runtime> {
  const redis = await connectRedis(createRedis(env.redisUrl, 'test-worker', { log: env.log }), env.redisUrl);
  const workerId = opts.workerId ?? processId('worker');
  // The runtime tests run the diagnostic actors only: 4 echo + 4 counter partitions.
  const actors = opts.actors ?? [echoActor, counterActor];
  const options = { ...testRuntimeOptions, ...opts.options };
  const runtime = new Runtime({
    workerId,
    ...redisRuntimeAdapters({
      redis,
      connect: (name, blocking) => createRedis(env.redisUrl, name, { blocking, log: env.log }),
      keys: env.keys,
      workerId,
      leaseTtlMs: options.leaseTtlMs,
      types: actors.map((a) => a.type),
      log: env.log,
    }),
    store: createPgSnapshotStore(opts.sql ?? env.sql),
    log: env.log,
    metrics: opts.metrics ?? createMetrics(),
    actors,
    options,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  await runtime.start();
  const close = runtime.close.bind(runtime);
  runtime.close = async () => {
    await close();
    redis.disconnect();
  };
  return runtime;
}

/** An ask/tell client in this process, on the test file's prefix. */
export async function startClient(
  env: Isolated,
  opts: { timeoutMs?: number; partitions?: number } = {},
): Promise<ActorClient> {
  const redis = await connectRedis(createRedis(env.redisUrl, 'test-client', { log: env.log }), env.redisUrl);
  const reader = await connectRedis(
    createRedis(env.redisUrl, 'test-client-replies', { blocking: true, log: env.log }),
    env.redisUrl,
  );
  const client = new ActorClient(
    redis,
    reader,
    env.keys,
    processId('gateway'),
    {
      defaultTimeoutMs: opts.timeoutMs ?? 10_000,
      maxInFlight: 100_000,
      partitionsOf: () => opts.partitions ?? testRuntimeOptions.partitions,
    },
    env.log,
    createMetrics(),
  );
  await client.start();
  const close = client.close.bind(client);
  client.close = async () => {
    await close();
    redis.disconnect();
  };
  return client;
}

/** The stream fields of a one-way message to an actor, as a gateway's tell() writes them. */
export function tellFields(key: string, body: { kind: string } & Record<string, unknown>): string[] {
  return encodeEntry({
    key,
    kind: body.kind,
    body: JSON.stringify(body),
    reply: '',
    corr: '',
    ts: Date.now(),
  });
}

/** Every dead letter of a type, over its partitions' dead-letter streams, oldest first. */
export async function deadLettersOf(
  env: Pick<Isolated, 'redis' | 'keys'>,
  type: string,
  partitions = testRuntimeOptions.partitions,
): Promise<Array<[string, string[]]>> {
  const all: Array<[string, string[]]> = [];
  for (let p = 0; p < partitions; p++) all.push(...(await env.redis.xrange(env.keys.deadLetter(type, p), '-', '+')));
  return all.sort(([a], [b]) => compareStreamIds(a, b));
}
