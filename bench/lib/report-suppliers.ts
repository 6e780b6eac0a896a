import { fmt, type LevelResult } from './measure.js';

export interface SuppliersResult {
  spread: LevelResult;
  hot: LevelResult;
  growth: {
    windows: Array<LevelResult & { cpuUs?: number }>;
    unsettled: number;
    drainSeconds: number;
    windowSeconds: number;
  };
  snapshots: Array<{ type: string; actors: number; mean: number; max: number }>;
}

/** The money path's section of BENCHMARKS.md (issue 38), as ratios to the echo ask at 64. */
export function renderSuppliers(r: SuppliersResult, echo: LevelResult | undefined): string {
  const ratio = (x: LevelResult) => fmt.ratio(x.perSecond, echo?.perSecond ?? NaN);
  const row = (name: string, x: LevelResult): string =>
    `| ${name} | ${x.concurrency} | ${fmt.rate(x.perSecond)} | ${fmt.ms(x.p50Ms)} | ${fmt.ms(x.p99Ms)} | ${x.errors} | **${ratio(x)}** |`;
  const first = r.growth.windows[0];
  const last = r.growth.windows.at(-1);
  const windows = r.growth.windows
    .map(
      (w, i) =>
        `| ${i + 1} | ${fmt.rate(w.perSecond)} | ${fmt.ms(w.p50Ms)} | ${fmt.ms(w.p99Ms)} | ${ratio(w)} | ${fmt.rate(w.cpuUs ?? NaN)} |`,
    )
    .join('\n');
  const snapshots = r.snapshots.map((s) => `| ${s.type} | ${fmt.rate(s.actors)} | ${s.mean} | ${s.max} |`).join('\n');
  return `## Money path: one supplier against many, and as unsettled redemptions pile up

Every redemption credits its supplier's account (pending until a regulator accepts the claim) in
the voucher's own commit: the account's pending tally, one row per voucher
partition (migration 027), so one supplier's credits never queue on one row or one actor. A level
counts a redemption when the voucher answered, and its rate is taken over the level **and** the
time until every account shows every credit as pending (so a backlog could not flatter it; since
027 there is none). Over 10,000 vouchers, at the actors.

| Suppliers | Concurrent | redemptions/s | p50 ms | p99 ms | errors | vs echo ask() at 64 |
|---|---|---|---|---|---|---|
${row('64 suppliers', r.spread)}
${row('1 supplier', r.hot)}

The growth run: one supplier redeems, 64 at once, until ${fmt.rate(r.growth.unsettled)} redemptions wait on a
regulator; the rate of each ${r.growth.windowSeconds}-second window, and the CPU each redemption took in it
(worker, PostgreSQL and Redis, from \`/proc\`: unlike a rate, it does not follow this VM's speed,
so it tells a cost that grows from a slow stretch of the machine). The schema is vacuumed between
windows, as autovacuum would (it is off on this machine). The account showed the last credits
${r.growth.drainSeconds.toFixed(1)} s after the last window. Last window against the first:
**${first && last ? fmt.ratio(last.perSecond, first.perSecond) : 'n/a'}** by rate, **${first?.cpuUs && last?.cpuUs ? fmt.ratio(first.cpuUs, last.cpuUs) : 'n/a'}** by CPU per redemption (first over last).

| Window | redemptions/s | p50 ms | p99 ms | vs echo ask() at 64 | µs of CPU per redemption |
|---|---|---|---|---|---|
${windows}

Snapshot bytes per actor type after these runs (\`octet_length(state::text)\` in the run's schema;
the hot supplier's account is among the accounts):

| Type | actors | mean bytes | largest bytes |
|---|---|---|---|
${snapshots}
`;
}

/** Puts the section before the token conversion one (or at the end). */
export function withSuppliersSection(markdown: string, section: string): string {
  const at = markdown.indexOf('## Token conversion');
  return at < 0 ? `${markdown.trimEnd()}\n\n${section}\n` : `${markdown.slice(0, at)}${section}\n${markdown.slice(at)}`;
}
