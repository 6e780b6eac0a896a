/*
 * `npm run bench:cluster`: only the Redis Cluster comparison of `npm run bench` (see
 * suites/cluster.ts), written into BENCHMARKS.md's cluster section in place.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { benchEnv } from './lib/env.js';
import { renderCluster, withClusterSection } from './lib/report-cluster.js';
import { clusterComparison } from './suites/cluster.js';

function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function main(): Promise<void> {
  const env = benchEnv();
  progress(`${env.machine}; ${env.seconds} s per level`);
  progress('cluster: echo ask() at 64 and USSD hops at 150, one Redis against a 3-master cluster, in turns');
  const c = await clusterComparison(env, progress);
  const section = renderCluster(c, env.machine, env.seconds);
  writeFileSync('BENCHMARKS.md', withClusterSection(readFileSync('BENCHMARKS.md', 'utf8'), section));
  progress('wrote the cluster section of BENCHMARKS.md');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
