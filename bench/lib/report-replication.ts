import type { ReplicationResult } from '../suites/replication.js';
import { fmt, type LevelResult } from './measure.js';

/** The synchronous replication section of BENCHMARKS.md (issue 40), as ratios to one PostgreSQL. */
export function renderReplication(r: ReplicationResult | undefined, seconds: number): string {
  const heading = '## PostgreSQL with a synchronous standby (pg_auto_failover)';
  if (!r)
    return `${heading}\n\nNot measured in this run: pg_auto_failover is not installed, or the run was not root.\n`;
  const row = (name: string, one: LevelResult, pair: LevelResult): string =>
    `| ${name} | ${fmt.rate(one.perSecond)} | ${fmt.ms(one.p99Ms)} | ${fmt.rate(pair.perSecond)} | ${fmt.ms(pair.p99Ms)} | **${fmt.ratio(pair.perSecond, one.perSecond)}** |`;
  return `${heading}

What synchronous replication costs: the echo ask and redemptions over 10,000 vouchers, 64 at once,
${seconds} s each, first on the machine's PostgreSQL, then on a pg_auto_failover formation the run
starts on loopback (a monitor, a primary and its synchronous standby, each a \`pg_autoctl\` node
as the tests start it; \`docs/operations.md\`), each with a worker and a schema of its own, back to
back. Every commit waits for the standby to have flushed it. Both servers share this machine's two
cores and talk over loopback: on two machines the standby's CPU is its own and each commit waits a
network round trip instead. A group commit carries a round of asks, so the wait is paid per round.

| 64 concurrent | one PostgreSQL /s | p99 ms | pair /s | p99 ms | pair / one |
|---|---|---|---|---|---|
${row('echo ask()', r.single.echo, r.pair.echo)}
${row('redemptions (10,000 vouchers)', r.single.redeem, r.pair.redeem)}
`;
}

/** Puts the section before "Reading these numbers" (or at the end). */
export function withReplicationSection(markdown: string, section: string): string {
  const at = markdown.indexOf('## Reading these numbers');
  return at < 0 ? `${markdown.trimEnd()}\n\n${section}\n` : `${markdown.slice(0, at)}${section}\n${markdown.slice(at)}`;
}
