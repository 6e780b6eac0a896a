import { startRedisCluster } from '../../test/support/redis-cluster.js';
import type { BenchEnv } from '../lib/env.js';
import { cleanup } from '../lib/env.js';
import type { LevelResult } from '../lib/measure.js';
import { echoAsk, startClient, startWorker } from './runtime.js';
import { ussdHops, type UssdLevel } from './ussd.js';

type Side = 'single' | 'cluster' | 'replicated';

/** One round: every side measured once, one after the other, minutes apart at most. */
interface ClusterRound {
  echo: Record<Side, LevelResult>;
  ussd: Record<Side, UssdLevel>;
}

export interface ClusterComparison {
  masters: number;
  rounds: ClusterRound[];
  /** Each master's share of the commands Redis ran during the cluster's echo asks. */
  shares: Array<{ port: number; share: number }>;
}

/** How many rounds: the machine's speed drifts over minutes, so each round compares its own runs. */
const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 3);

/**
 * hearth on a Redis Cluster of 3 masters (started on loopback) against one Redis, in one
 * sitting, on the same cores: the echo ask() at 64 askers and USSD hops at 150 sessions. Three
 * sides: one Redis; the cluster without replicas (what the cluster path itself costs: reads per
 * partition, writes per mailbox); the cluster with a replica per master (what a deployment that
 * survives a failover pays, here on the same two cores: every write is applied twice). Each side
 * has its own worker process, key prefix and schema. The sides take turns, round after round
 * (every other round in reverse), and each round's ratios compare runs made a minute apart: a
 * shared machine's speed drifts more than that between rounds (seen: one Redis at 16,189 echo
 * asks/s in one round and 8,896/s in the next). The report gives every round and their median.
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
  const rounds: ClusterRound[] = [];
  let shares: ClusterComparison['shares'] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const echo: Partial<Record<Side, LevelResult>> = {};
      const ussd: Partial<Record<Side, UssdLevel>> = {};
      // Every other round in reverse, so that no side always runs first.
      const order = ['single', 'cluster', 'replicated'] as const;
      for (const name of round % 2 === 1 ? order : [...order].reverse()) {
        const side = sides[name];
        const worker = await startWorker(side);
        const session = await startClient(side);
        try {
          const before = await commands();
          [echo[name]] = await echoAsk(side, session.client, [64]);
          const after = await commands();
          if (name === 'cluster') {
            const deltas = after.map((n, i) => n - before[i]!);
            const total = deltas.reduce((a, b) => a + b, 0);
            shares = masters.map((port, i) => ({ port, share: deltas[i]! / total }));
          }
          [ussd[name]] = await ussdHops(side, worker.proc.pid ?? 0, [150]);
          progress(
            `  ${name} (round ${round}): echo at 64 ${Math.round(echo[name]!.perSecond)}/s, USSD at 150 ${Math.round(ussd[name]!.perSecond)} hops/s`,
          );
        } finally {
          await session.close();
          await worker.stop();
        }
      }
      rounds.push({ echo: echo as Record<Side, LevelResult>, ussd: ussd as Record<Side, UssdLevel> });
    }
  } finally {
    await cleanup(sides.single);
    await cleanup({ ...sides.cluster, redisUrl: undefined });
    await cleanup({ ...sides.replicated, redisUrl: undefined });
    await bare.stop();
    await replicated.stop();
  }
  return { masters: masters.length, rounds, shares };
}

/** The median of each round's ratio of `side` to one Redis, for one load. */
export function medianRatio(c: ClusterComparison, load: 'echo' | 'ussd', side: 'cluster' | 'replicated'): number {
  const ratios = c.rounds.map((r) => r[load][side].perSecond / r[load].single.perSecond).sort((a, b) => a - b);
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
}
