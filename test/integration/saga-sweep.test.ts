import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversionState } from '../../src/conversion/conversion.js';
import { startHearth, type Hearth } from '../../src/hearth.js';
import { eventually, isolated, type Isolated } from '../support/isolated.js';

/**
 * A saga whose step was refused outright waits; the sweep sends the step again once it has not
 * moved for SAGA_RESUME_AFTER_MS, and the saga goes on. Here the pool refuses a swap because it is
 * not seeded yet: once it is, the resumed swap fills.
 */
describe('the saga sweep', () => {
  let env: Isolated;
  let hearth: Hearth;
  const trader = 'did:key:z6MkSweepTrader';
  const ask = <T>(type: string, key: string, msg: { kind: string } & Record<string, unknown>) =>
    hearth.client!.ask<T>(type, key, msg);
  const saga = () => ask<ConversionState>('conversion', 'cv_sweep', { kind: 'get' });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', SAGA_RESUME_AFTER_MS: '1000' }), env.log);
    await ask('account', trader, { kind: 'credit', id: 'grant', asset: 'CARBON', amount: '5000000' });
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('resumes a saga stuck on a refused step, which then completes', async () => {
    await ask('conversion', 'cv_sweep', {
      kind: 'start',
      fingerprint: 'c'.repeat(64),
      account: trader,
      pool: 'CARBON-USDC',
      assetIn: 'CARBON',
      amountIn: '1000000',
      minOut: '1',
    });
    // The pool is not seeded: it refuses the swap, and nothing answers the saga.
    const stuck = await eventually(saga, (c) => c.status === 'swapping');
    expect(stuck.status).toBe('swapping');
    await new Promise((r) => setTimeout(r, 300));
    expect((await saga()).status).toBe('swapping');
    await ask('pool', 'CARBON-USDC', {
      kind: 'deposit',
      id: 'seed',
      deposits: { CARBON: '100000000', USDC: '200000000' },
      feeBps: 30,
    });
    const done = await eventually(saga, (c) => c.status === 'completed', 10_000);
    expect(done).toMatchObject({ status: 'completed', fill: { assetOut: 'USDC' } });
    expect(done.resumes).toBeGreaterThanOrEqual(1);
    const account = await ask<{ balances: Record<string, { available: string; held: string }> }>('account', trader, {
      kind: 'get',
    });
    expect(account.balances.CARBON).toMatchObject({ available: '4000000', held: '0' });
    expect(account.balances.USDC?.available).toBe(done.fill!.amountOut);
  });

  it('leaves sagas that have ended alone', async () => {
    const before = (await saga()).resumes;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await saga()).resumes).toBe(before);
  });
});
