/*
 * `npm run ledger:verify [-- <height>:<hash> ...]`: recomputes the journal's whole hash chain
 * and exits 0 when it checks out, 1 naming the first bad block when a row was altered (or a
 * checkpoint recorded earlier no longer matches), 2 when it could not run.
 */
import { loadDatabaseConfig } from '../config.js';
import { withDotEnv } from '../env-file.js';
import { assertDatabaseReachable, createSql } from '../store/db.js';
import { progressBar } from './progress-bar.js';
import { parseCheckpoint, verifyJournal } from './verify.js';
import { shown } from '../common/movement.js';

async function main(): Promise<number> {
  const config = loadDatabaseConfig(withDotEnv(process.env));
  const sql = createSql({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, max: 2 });
  try {
    await assertDatabaseReachable(sql);
    const started = Date.now();
    const checkpoints = process.argv.slice(2).map(parseCheckpoint);
    const [head] = await sql<{ height: string }[]>`SELECT height FROM ledger_head WHERE id = 1`;
    const bar = progressBar('ledger:verify', Number(head?.height ?? 0), process.stderr);
    const result = await verifyJournal(sql, { checkpoints, progress: (blocks) => bar.update(blocks) });
    bar.end();
    if (result.ok) {
      process.stdout.write(
        `ledger:verify: OK: ${result.blocks} blocks, ${result.entries} entries, chain intact, head ${result.head ?? 'none'} (${Date.now() - started} ms)\n`,
      );
      // Per asset: every movement balanced and nobody below zero, so held = minted - burned.
      for (const [asset, t] of Object.entries(result.assets ?? {})) {
        process.stdout.write(
          `ledger:verify: ${asset}: minted ${shown(t.minted)}, burned ${shown(t.burned)}, held ${shown(t.held)}: balanced\n`,
        );
      }
      return 0;
    }
    process.stdout.write(
      `ledger:verify: FAILED at block ${result.bad?.height}: ${result.bad?.reason} (${result.blocks} blocks before it check out)\n`,
    );
    return 1;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`ledger:verify: could not run: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
