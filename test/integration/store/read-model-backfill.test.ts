import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSessionActor } from '../../../src/actors/chat/index.js';
import { claimActor } from '../../../src/actors/claim/index.js';
import type { ActorDefinition } from '../../../src/actors/runtime/types.js';
import { responseActor } from '../../../src/actors/survey-response/index.js';
import { surveyActor } from '../../../src/actors/survey/index.js';
import { voucherActor } from '../../../src/actors/voucher/index.js';
import { createSql, type Sql } from '../../../src/store/db.js';
import { readMigrations } from '../../../src/store/migrate.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/** States as 014 left them in actor_snapshots: the fields each read model reads, and more. */
const before: Array<[ActorDefinition, string, Record<string, unknown>]> = [
  [
    voucherActor,
    'vch_1',
    {
      id: 'vch_1',
      recipientDid: 'did:ixo:h1',
      emissionCertificateId: 'cert-1',
      status: 'active',
      attributes: { expiryDate: '2027-01-31', productIds: ['stove'] },
      createdAt: '2026-11-01T10:00:00.000Z',
      remainingBalance: 40,
    },
  ],
  [
    claimActor,
    'clm-key',
    { id: 'clm_1', supplierDid: 'did:ixo:s1', voucherId: 'vch_1', createdAt: '2026-11-02T10:00:00.000Z' },
  ],
  [
    surveyActor,
    'srv_1',
    { id: 'srv_1', templateId: 'tpl_1', projectId: 'p1', status: 'open', createdAt: '2026-11-03T10:00:00.000Z' },
  ],
  [
    responseActor,
    'rsp_1',
    { id: 'rsp_1', surveyId: 'srv_1', householdId: 'did:ixo:h1', timestamp: '2026-11-04T10:00:00.000Z' },
  ],
  [
    chatSessionActor,
    'chat_1',
    { sessionId: 'chat_1', ownerDid: 'did:ixo:u1', createdAt: '2026-11-05T10:00:00.000Z', deleted: true },
  ],
];

/**
 * Migration 015 moves the lookups out of actor_snapshots into each product's read model table,
 * filling them from the snapshots already there: it must fill them as the read models declared
 * in code would have written them, or reads of old actors would differ from reads of new ones.
 */
describe('migration 015 (read models)', () => {
  let env: Isolated;
  let sql: Sql;
  const schema = `t_backfill_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    env = await isolated();
    sql = createSql({ url: env.databaseUrl, schema, max: 1 });
    await sql.unsafe(`CREATE SCHEMA "${schema}"`);
  });

  afterAll(async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end({ timeout: 5 });
    await env.cleanup();
  });

  it('fills each read model from the snapshots as the code would write it', async () => {
    const migrations = await readMigrations();
    for (const m of migrations.filter((x) => x.id < 15)) await sql.unsafe(m.sql);
    for (const [def, key, state] of before) {
      await sql`
        INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
        VALUES (${def.type}, ${key}, 1, ${sql.json(state as never)}, '1-0', 1)`;
    }
    await sql.unsafe(migrations.find((x) => x.id === 15)!.sql);

    for (const [def, key, state] of before) {
      const view = def.view!;
      const [row] = await sql.unsafe<Record<string, unknown>[]>(
        `SELECT ${view.columns.map((c) => `"${c}"`).join(', ')} FROM "${view.table}" WHERE key = $1`,
        [key],
      );
      expect({ table: view.table, row }).toEqual({ table: view.table, row: view.row(state as never) });
    }
    const columns = await sql<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = ${schema} AND table_name = 'actor_snapshots' ORDER BY ordinal_position`;
    expect(columns.map((c) => c.column_name)).toEqual([
      'type',
      'key',
      'version',
      'state',
      'last_msg_id',
      'epoch',
      'updated_at',
    ]);
  });
});
