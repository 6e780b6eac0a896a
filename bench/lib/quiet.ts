import postgres from 'postgres';
import { cpuMeter } from './cpu.js';
import type { BenchEnv } from './env.js';

/**
 * Waits until the run's ledger has chained every entry written: the voucher suites leave tens of
 * thousands of ledger entries behind them, and a suite measured while the worker and PostgreSQL
 * still work them off was measured ~30% slow (USSD here). Gives up after `maxMs`, saying so.
 */
export async function untilLedgerCaughtUp(
  env: BenchEnv,
  progress: (line: string) => void,
  maxMs = 180_000,
): Promise<void> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const started = Date.now();
    for (let shown = 0; ;) {
      const [row] = await sql<
        { n: string }[]
      >`SELECT count(*) AS n FROM ${sql(env.schema)}.ledger_entries e, ${sql(env.schema)}.ledger_head h
         WHERE h.id = 1 AND e.txid IS NOT NULL AND (e.txid, e.entry_id) > (h.cursor_txid, h.cursor_entry)`;
      const left = Number(row?.n ?? 0);
      if (left === 0) return;
      if (Date.now() - started > maxMs)
        return progress(`  ${left} ledger entries still waiting for their block; measuring anyway`);
      if (Date.now() - shown > 5_000) {
        progress(`  waiting for the ledger: ${left} entries left to chain`);
        shown = Date.now();
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await sql.end();
  }
}

/**
 * Waits until PostgreSQL's processes use under 5% of a core for a whole second (autovacuum,
 * checkpoints after the voucher suites' writes), at most `maxMs`. Without it the USSD suite
 * measured PostgreSQL at 92–177 µs per hop instead of ~40.
 */
export async function untilPostgresIdle(progress: (line: string) => void, maxMs = 90_000): Promise<void> {
  const meter = cpuMeter({ postgres: { command: 'postgres' } });
  const started = Date.now();
  for (let shown = 0; Date.now() - started < maxMs;) {
    meter.start();
    await new Promise((r) => setTimeout(r, 1_000));
    meter.stop();
    const ms = meter.spent().postgres;
    if (!(ms >= 50)) return; // idle, or not visible from here (NaN)
    if (Date.now() - shown > 5_000) {
      progress(`  waiting for PostgreSQL to settle (${Math.round(ms / 10)}% of a core busy)`);
      shown = Date.now();
    }
  }
  progress('  PostgreSQL still busy; measuring anyway');
}

/**
 * VACUUM (ANALYZE) of every table of the run's schema: what autovacuum does in a deployment.
 * This machine's PostgreSQL runs with `autovacuum = off`, so without it each suite ran on the
 * dead rows and stale statistics of the ones before: the USSD suite measured PostgreSQL at
 * 63–72 µs per hop after the voucher suites, and 30 after this (the same run otherwise).
 */
export async function vacuumAnalyze(env: BenchEnv, progress: (line: string) => void): Promise<void> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const started = Date.now();
    const tables = await sql<
      { name: string }[]
    >`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${env.schema}`;
    const quoted = (id: string): string => `"${id.replace(/"/g, '""')}"`;
    for (const { name } of tables) await sql.unsafe(`VACUUM (ANALYZE) ${quoted(env.schema)}.${quoted(name)}`);
    progress(`  vacuumed and analyzed ${tables.length} tables in ${Date.now() - started} ms (autovacuum is off here)`);
  } finally {
    await sql.end();
  }
}
