import { medianRatio, type ClusterComparison } from '../suites/cluster.js';
import { fmt } from './measure.js';

const START = '<!-- cluster section: npm run bench or npm run bench:cluster -->';
const END = '<!-- end of cluster section -->';

/** The Redis Cluster section of BENCHMARKS.md. */
export function renderCluster(c: ClusterComparison, machine: string, seconds: number): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const runs = (load: 'echo' | 'ussd', side: 'single' | 'cluster' | 'replicated') =>
    c.rounds.map((r) => `${fmt.rate(r[load][side].perSecond)} (p99 ${fmt.ms(r[load][side].p99Ms)})`).join('<br>');
  const ratios = (load: 'echo' | 'ussd', side: 'cluster' | 'replicated') =>
    c.rounds.map((r) => fmt.ratio(r[load][side].perSecond, r[load].single.perSecond)).join(', ');
  const row = (name: string, load: 'echo' | 'ussd') =>
    `| ${name} | ${runs(load, 'single')} | ${runs(load, 'cluster')} | ${ratios(load, 'cluster')} | **${pct(medianRatio(c, load, 'cluster'))}** | ${runs(load, 'replicated')} | ${ratios(load, 'replicated')} | **${pct(medianRatio(c, load, 'replicated'))}** |`;
  return `${START}
## On a Redis Cluster

${c.masters} masters (\`redis-server --cluster-enabled yes\` on loopback, started by the run), without
and with a replica per master, against the machine's one Redis, in the same sitting and on the
same ${machine}; ${seconds} s per level. The three sides take turns, ${c.rounds.length} rounds (every
other one in reverse order), and each round's cluster run is compared with the one-Redis run of
the same round: this machine's speed drifts more between rounds than within one, so the ratio
reported is the median of the rounds' ratios. Every Redis node shares the two cores with
everything else, so the ratios are costs, not a speed-up: without replicas, the cluster path's
own (a read per partition, an \`XADD\` per entry and a bell per mailbox, one write per node for
each batch, three Redis processes instead of one); with them, also every write applied a second
time by a replica on the same cores. The aim: at least 80% of one Redis.

| Load | one Redis /s, per round | cluster /s, per round | cluster / one, per round | **median** | with replicas /s, per round | replicated / one, per round | **median** |
|---|---|---|---|---|---|---|---|
${row('echo ask(), 64 askers', 'echo')}
${row('USSD hops, 150 sessions', 'ussd')}

Share of the commands each master ran during the cluster's echo asks (16 echo partitions, each
mailbox in a slot of its own): ${c.shares.map((s) => `:${s.port} ${(s.share * 100).toFixed(0)}%`).join(', ')}.

Reproduce this section alone with \`npm run bench:cluster\` (needs \`redis-server\` and \`redis-cli\`;
\`BENCH_CLUSTER_ROUNDS\` sets the rounds, 3 by default).
${END}`;
}

/** BENCHMARKS.md with its cluster section replaced (or added at the end). */
export function withClusterSection(markdown: string, section: string): string {
  const from = markdown.indexOf(START);
  const to = markdown.indexOf(END);
  if (from >= 0 && to > from) return markdown.slice(0, from) + section + markdown.slice(to + END.length);
  return `${markdown.trimEnd()}\n\n${section}\n`;
}
