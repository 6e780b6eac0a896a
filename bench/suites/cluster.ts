import { startRedisCluster } from '../../test/support/redis-cluster.js';
import type { BenchEnv } from '../lib/env.js';
import { cleanup } from '../lib/env.js';
import { better, type LevelResult } from '../lib/measure.js';
import { echoAsk, startClient, startWorker } from './runtime.js';
import { ussdHops, type UssdLevel } from './ussd.js';

type Side = 'single' | 'cluster' | 'replicated';

export interface ClusterComparison {
  masters: number;
  echo: Record<Side, LevelResult>;
  ussd: Record<Side, UssdLevel>;
  /** Each master's share of the commands Redis ran during the cluster's echo asks. */
  shares: Array<{ port: number; share: number }>;
}

/**
 * hearth on a Redis Cluster of 3 masters (started on loopback) against one Redis, in one
 * sitting, on the same cores: the echo ask() at 64 askers and USSD hops at 150 sessions. Three
 * sides: one Redis; the cluster without replicas (what the cluster path itself costs: reads per
 * partition, writes per mailbox); the cluster with a replica per master (what a deployment that
 * survives a failover pays, here on the same two cores: every write is applied twice). Each side
 * is measured twice, in turn, the better run kept; each has its own worker process, key prefix
 * and schema.
 */
export async function clusterComparison(env: BenchEnv, progress: (line: string) => void): Promise<ClusterComparison> {
  // A long node timeout: a master starved of CPU by the load must not be failed over mid-run.
  const bare = await startRedisCluster({ replicas: 0, nodeTimeoutMs: 60_000 });
  const replicated = await startRedisCluster({ replicas: 1, nodeTimeoutMs: 60_000 });
  const sides: Record<Side, BenchEnv> = {
    single: { ...env, prefix: `${env.prefix}s`, schema: `${env.schema}_s` },
    cluster: { ...env, redisUrl: `redis+cluster://${bare.seeds}`, prefix: `${env.prefix}c`, schema: `${env.schema}_c` },
    replicated: {
      ...env,
      redisUrl: `redis+cluster://${replicated.seeds}`,
      prefix: `${env.prefix}r`,
      schema: `${env.schema}_r`,
    },
  };
  const masters = await bare.masters();
  const commands = async () =>
    Promise.all(
      masters.map(async (port) =>
        Number(/total_commands_processed:(\d+)/.exec(await bare.cli(port, 'INFO', 'stats'))?.[1]),
      ),
    );
  const results: Record<Side, { echo: LevelResult[]; ussd: UssdLevel[] }> = {
    single: { echo: [], ussd: [] },
    cluster: { echo: [], ussd: [] },
    replicated: { echo: [], ussd: [] },
  };
  let shares: ClusterComparison['shares'] = [];
  try {
    for (let round = 1; round <= 2; round++) {
      for (const name of ['single', 'cluster', 'replicated'] as const) {
        const side = sides[name];
        const worker = await startWorker(side);
        const session = await startClient(side);
        try {
          const before = await commands();
          const [echo] = await echoAsk(side, session.client, [64]);
          const after = await commands();
          if (name === 'cluster') {
            const deltas = after.map((n, i) => n - before[i]!);
            const total = deltas.reduce((a, b) => a + b, 0);
            shares = masters.map((port, i) => ({ port, share: deltas[i]! / total }));
          }
          const [ussd] = await ussdHops(side, worker.proc.pid ?? 0, [150]);
          progress(
            `  ${name} (round ${round}): echo at 64 ${Math.round(echo!.perSecond)}/s, USSD at 150 ${Math.round(ussd!.perSecond)} hops/s`,
          );
          results[name].echo.push(echo!);
          results[name].ussd.push(ussd!);
        } finally {
          await session.close();
          await worker.stop();
        }
      }
    }
  } finally {
    await cleanup(sides.single);
    await cleanup({ ...sides.cluster, redisUrl: undefined });
    await cleanup({ ...sides.replicated, redisUrl: undefined });
    await bare.stop();
    await replicated.stop();
  }
  const best = <T extends LevelResult>(xs: T[]): T => better([xs[0]!], [xs[1] ?? xs[0]!])[0] as T;
  const of = <K extends 'echo' | 'ussd'>(k: K) =>
    Object.fromEntries((['single', 'cluster', 'replicated'] as const).map((n) => [n, best(results[n][k])])) as Record<
      Side,
      ClusterComparison[K]['single']
    >;
  return { masters: masters.length, echo: of('echo'), ussd: of('ussd'), shares };
}
