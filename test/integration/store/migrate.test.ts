import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MigrationError, readMigrations } from '../../../src/store/migrate.js';
import { createSql } from '../../../src/store/db.js';
import { isolated, type Isolated } from '../../support/isolated.js';

describe('migrations', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('are idempotent: a second run applies nothing', async () => {
    expect(await migrate(env.sql, env.schema, env.log)).toEqual([]);
    const rows = await env.sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY id`;
    expect(rows.map((r) => r.name)).toEqual((await readMigrations()).map((m) => m.name));
  });

  it('create the runtime and registry tables in the configured schema', async () => {
    const tables = await env.sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = ${env.schema} ORDER BY table_name`;
    expect(tables.map((t) => t.table_name)).toEqual([
      'account_views',
      'actor_facts',
      'actor_records',
      'actor_snapshots',
      'actor_tallies',
      'api_keys',
      'certificates',
      'chat_views',
      'claim_views',
      'conversion_views',
      'counterparties',
      'households',
      'idempotency_keys',
      'ledger_blocks',
      'ledger_entries',
      'ledger_head',
      'operator_actions',
      'oracle_delegations',
      'oracle_revoked_delegations',
      'order_views',
      'outbox',
      'partition_fences',
      'pool_views',
      'products',
      'schema_migrations',
      'suppliers',
      'survey_response_views',
      'survey_views',
      'ussd_pins',
      'ussd_preferences',
      'voucher_codes',
      'voucher_views',
    ]);
  });

  it('run safely when several processes start at once', async () => {
    const results = await Promise.all([1, 2, 3].map(() => migrate(env.sql, env.schema, env.log)));
    expect(results.flat()).toEqual([]);
  });

  it('refuse a migration edited after it was applied, naming the remedy', async () => {
    await env.sql`UPDATE schema_migrations SET checksum = 'tampered' WHERE id = 1`;
    const err = await migrate(env.sql, env.schema, env.log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(
      /^Migration failed \(001_runtime was edited after it was applied\): restore the applied text of that file and put the change in a new migration.*re-run the migrations/,
    );
    const [first] = await readMigrations();
    await env.sql`UPDATE schema_migrations SET checksum = ${first!.checksum} WHERE id = 1`;
  });

  it("give the spec's remedy when the user may not write, naming the cause", async () => {
    const url = new URL(env.databaseUrl);
    const role = `hearth_reader_${env.schema}`;
    await env.sql.unsafe(`DROP ROLE IF EXISTS ${role}`);
    // The same password as the test's own user, for servers that ask for one (testcontainers).
    const password = url.password ? ` PASSWORD '${decodeURIComponent(url.password).replace(/'/g, "''")}'` : '';
    await env.sql.unsafe(`CREATE ROLE ${role} LOGIN${password}`);
    url.username = role;
    const reader = createSql({ url: url.toString(), schema: `${env.schema}_ro`, max: 1 });
    try {
      const err = await migrate(reader, `${env.schema}_ro`, env.log).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(
        /^Migration failed \(.*permission denied.*\): the database is missing or the user lacks write permission/,
      );
    } finally {
      await reader.end();
      await env.sql.unsafe(`DROP ROLE IF EXISTS ${role}`);
    }
  });
});
