/* The `npm run migrate` entry: applies the migrations and exits. */
import { loadDatabaseConfig } from '../config.js';
import { withDotEnv } from '../env-file.js';
import { createLogger } from '../log.js';
import { assertDatabaseReachable, createSql } from './db.js';
import { migrate } from './migrate.js';

async function run(): Promise<void> {
  const config = loadDatabaseConfig(withDotEnv(process.env));
  const log = createLogger(config.LOG_LEVEL, 'hearth-migrate', config.LOG_FORMAT);
  const sql = createSql({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, max: 1 });
  try {
    await assertDatabaseReachable(sql);
    const applied = await migrate(sql, config.DATABASE_SCHEMA, log);
    log.info({ applied: applied.length, schema: config.DATABASE_SCHEMA }, 'migrations up to date');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

run().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
