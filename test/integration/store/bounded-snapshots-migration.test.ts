import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../../src/store/migrate.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/**
 * Migration 022 moves what account, pool and voucher snapshots kept of their history into facts.
 * Snapshots of the old shape are written into a migrated schema, the migration's text is run on
 * them, and the actors' new shapes and facts are checked.
 */
describe('migration 022: bounded snapshots', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
    const snapshot = (type: string, key: string, state: unknown) =>
      env.sql`INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
              VALUES (${type}, ${key}, 3, ${env.sql.json(state as never)}, '9-0', 1)`;
    await snapshot('account', 'did:key:s', {
      balances: { CARBON: '5' },
      holds: {},
      pending: { 'r1:pending': { asset: 'CARBON', amount: '7' }, 'r2:pending': { asset: 'CARBON', amount: '8' } },
      recent: ['c1', 'r1:pending', 'r2:pending', 'r0:pending', 'r0:pending:settled'],
      itmo: { claims: { i1: { id: 'i1', units: '3', status: 'claimed', createdAt: 'x' } }, certificates: {} },
    });
    await env.sql`INSERT INTO account_views (key, doc) VALUES ('did:key:s', ${env.sql.json({ balances: {}, itmo: {}, itmoIds: ['i1'] })})`;
    await snapshot('pool', 'P', {
      assets: ['A', 'B'],
      reserves: { A: '1', B: '2' },
      feeBps: 30,
      deposits: ['d1'],
      outcomes: [['x1', { filled: false, reason: 'slippage', quote: '0' }]],
    });
    await snapshot('voucher', 'v1', {
      id: 'v1',
      status: 'active',
      remainingBalance: 1,
      recent: [{ id: 'red1', requestId: 'q1', amount: 1 }],
      refunded: ['red0'],
    });
    // The read model as 022 found it: its voucher rows had a document until 028.
    await env.sql`ALTER TABLE voucher_views ADD COLUMN doc jsonb`;
    const m = (await readMigrations()).find((x) => x.name === '022_bounded_snapshots');
    await env.sql.unsafe(m!.sql);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  const state = async (type: string, key: string) =>
    (
      await env.sql<
        { state: Record<string, unknown> }[]
      >`SELECT state FROM actor_snapshots WHERE type = ${type} AND key = ${key}`
    )[0]?.state;
  const facts = async (type: string, key: string) =>
    Object.fromEntries(
      (
        await env.sql<{ id: string; body: unknown }[]>`
          SELECT id, body FROM actor_facts WHERE type = ${type} AND key = ${key} ORDER BY id`
      ).map((r) => [r.id, r.body]),
    );

  it('keeps an account its balances, holds and pending totals, with each pending credit, step and ITMO claim a fact', async () => {
    expect(await state('account', 'did:key:s')).toEqual({
      balances: { CARBON: '5' },
      holds: {},
      pendingTotals: { CARBON: '15' },
    });
    const f = await facts('account', 'did:key:s');
    expect(f['pending:r1:pending']).toEqual({ asset: 'CARBON', amount: '7', status: 'pending' });
    expect(f['pending:r0:pending']).toMatchObject({ status: 'settled' });
    expect(f['step:c1']).toBeDefined();
    expect(f['itmo-claim:i1']).toMatchObject({ id: 'i1', units: '3' });
    const [view] = await env.sql<
      { doc: Record<string, unknown> }[]
    >`SELECT doc FROM account_views WHERE key = 'did:key:s'`;
    expect(view?.doc).toEqual({ balances: {} });
  });

  it('keeps a pool its reserves, with each outcome and deposit a fact', async () => {
    expect(await state('pool', 'P')).toEqual({ assets: ['A', 'B'], reserves: { A: '1', B: '2' }, feeBps: 30 });
    expect(Object.keys(await facts('pool', 'P'))).toEqual(['deposit:d1', 'swap:x1']);
  });

  it('keeps a voucher no redemption list, with each request and refund a fact', async () => {
    expect(await state('voucher', 'v1')).toEqual({ id: 'v1', status: 'active', remainingBalance: 1 });
    expect(await facts('voucher', 'v1')).toEqual({
      'redeem:q1': { id: 'red1', requestId: 'q1', amount: 1 },
      'refund:red0': { amount: null },
    });
  });
});

describe('migration 023: redemption requests found by their facts', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('makes a fact of every redemption on record, so a retry of an old one is still answered', async () => {
    const body = { id: 'red-old', requestId: 'q-old', voucherId: 'v9', amount: 1 };
    await env.sql`INSERT INTO actor_records (actor_type, actor_key, kind, record_id, msg_id, body)
                  VALUES ('voucher', 'v9', 'redemption', 'red-old', '1-0', ${env.sql.json(body)})`;
    const m = (await readMigrations()).find((x) => x.name === '023_hot_money_path');
    await env.sql.unsafe(m!.sql);
    const [fact] = await env.sql<{ key: string; body: unknown }[]>`
      SELECT key, body FROM actor_facts WHERE type = 'voucher' AND id = 'redeem:q-old'`;
    expect(fact).toEqual({ key: 'v9', body });
  });
});
