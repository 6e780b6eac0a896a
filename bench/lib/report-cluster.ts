import type { ClusterComparison } from '../suites/cluster.js';
import { fmt } from './measure.js';

const START = '<!-- cluster section: npm run bench or npm run bench:cluster -->';
const END = '<!-- end of cluster section -->';

/** The Redis Cluster section of BENCHMARKS.md. */
export function renderCluster(c: ClusterComparison, machine: string, seconds: number): string {
  type Run = { perSecond: number; p99Ms: number };
  const row = (name: string, r: { single: Run; cluster: Run; replicated: Run }) =>
    `| ${name} | ${fmt.rate(r.single.perSecond)} | ${fmt.ms(r.single.p99Ms)} | ${fmt.rate(r.cluster.perSecond)} | ${fmt.ms(r.cluster.p99Ms)} | **${fmt.ratio(r.cluster.perSecond, r.single.perSecond)}** | ${fmt.rate(r.replicated.perSecond)} | ${fmt.ms(r.replicated.p99Ms)} | **${fmt.ratio(r.replicated.perSecond, r.single.perSecond)}** |`;
  return `${START}
## On a Redis Cluster

${c.masters} masters (\`redis-server --cluster-enabled yes\` on loopback, started by the run), without
and with a replica per master, against the machine's one Redis, in the same sitting and on the
same ${machine}: each side measured twice, in turn, the better run kept; ${seconds} s per level.
Every Redis node shares the two cores with everything else, so the ratios are costs, not a
speed-up: without replicas, the cluster path's own (each partition read on its own, each mailbox
written by its own script, replies and acknowledgements per key); with them, also every write
applied a second time by a replica on the same cores. The aim: at least 80% of one Redis.

| Load | one Redis /s | p99 ms | cluster /s | p99 ms | **cluster / one** | with replicas /s | p99 ms | **replicated / one** |
|---|---|---|---|---|---|---|---|---|
${row('echo ask(), 64 askers', c.echo)}
${row('USSD hops, 150 sessions', c.ussd)}

Share of the commands each master ran during the cluster's echo asks (16 echo partitions, each
mailbox in a slot of its own): ${c.shares.map((s) => `:${s.port} ${(s.share * 100).toFixed(0)}%`).join(', ')}.

Reproduce this section alone with \`npm run bench:cluster\` (needs \`redis-server\` and \`redis-cli\`).
${END}`;
}

/** BENCHMARKS.md with its cluster section replaced (or added at the end). */
export function withClusterSection(markdown: string, section: string): string {
  const from = markdown.indexOf(START);
  const to = markdown.indexOf(END);
  if (from >= 0 && to > from) return markdown.slice(0, from) + section + markdown.slice(to + END.length);
  return `${markdown.trimEnd()}\n\n${section}\n`;
}
