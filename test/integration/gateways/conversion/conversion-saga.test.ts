import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversionState } from '../../../../src/actors/conversion/index.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';

/**
 * The conversion saga on the real runtime: the conversion, the account and the pool are actors
 * on their own partitions, and every step between them goes through the outbox and its relay.
 */
describe('conversion saga on the runtime', () => {
  let env: Isolated;
  let hearth: Hearth;
  const supplier = 'did:key:z6MkSupplierSaga';
  const ask = <T>(type: string, key: string, msg: { kind: string } & Record<string, unknown>) =>
    hearth.client!.ask<T>(type, key, msg);
  const settled = (id: string) =>
    eventually(
      () => ask<ConversionState>('conversion', id, { kind: 'get' }),
      (c) => ['completed', 'failed', 'rejected'].includes(c.status),
    );
  const start = (id: string, amountIn: string, minOut: string) =>
    ask<ConversionState>('conversion', id, {
      kind: 'start',
      fingerprint: id
        .padEnd(64, '0')
        .replace(/[^0-9a-f]/g, '0')
        .slice(0, 64),
      account: supplier,
      pool: 'CARBON-USDC',
      assetIn: 'CARBON',
      amountIn,
      minOut,
    });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '4', LEDGER_BATCH_MS: '20' }), env.log);
    await ask('pool', 'CARBON-USDC', {
      kind: 'deposit',
      id: 'seed',
      deposits: { CARBON: '1000000000', USDC: '2000000000' },
      feeBps: 30,
    });
    await ask('account', supplier, { kind: 'credit', id: 'grant', asset: 'CARBON', amount: '30000000' });
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('completes, refuses and compensates conversions across the three actors', async () => {
    expect((await start('a1', '10000000', '1')).status).toBe('reserving');
    await start('b2', '50000000', '1');
    await start('c3', '10000000', '30000000');
    const [done, poor, slipped] = await Promise.all([settled('a1'), settled('b2'), settled('c3')]);
    expect(done).toMatchObject({ status: 'completed', fill: { assetOut: 'USDC' } });
    expect(poor).toMatchObject({ status: 'rejected', failure: { code: 'INSUFFICIENT_BALANCE' } });
    expect(slipped).toMatchObject({ status: 'failed', failure: { code: 'SLIPPAGE' } });
    const account = await ask<{ balances: Record<string, { available: string; held: string }> }>('account', supplier, {
      kind: 'get',
    });
    expect(account.balances).toEqual({
      CARBON: { available: '20000000', held: '0', pending: '0' },
      USDC: { available: done.fill!.amountOut, held: '0', pending: '0' },
    });
    const pool = await ask<{ reserves: Record<string, string> }>('pool', 'CARBON-USDC', { kind: 'get' });
    expect(pool.reserves).toEqual({
      CARBON: '1010000000',
      USDC: String(2_000_000_000n - BigInt(done.fill!.amountOut)),
    });
    // The fill's movement reaches the ledger; the refusals write none.
    const entries = await eventually(
      () => env.sql<Array<{ step: string }>>`
        SELECT payload->>'step' AS step FROM ledger_entries WHERE payload->>'type' = 'conversion.swapped'`,
      (rows) => rows.length >= 1,
    );
    expect(entries.map((e) => e.step)).toEqual(['a1:swap']);
  });
});
