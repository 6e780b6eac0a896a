import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import {
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  redeemAndClaim,
  stablecoinFromExchange,
} from '../../../support/conversion-fixtures.js';

/**
 * The quoted rate of a payout (step 2) or an exchange order (step 6) is a money field: 0.0001 to
 * 1,000,000 with at most 6 decimal places, and what it makes of the amount (the fiat paid out,
 * the stablecoin bought) must itself be an amount hearth keeps: more than nothing, at most 1e9.
 */
describe('the rate of payouts and exchange orders', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let implementerKey = '';
  let n = 0;
  const post = (path: string, body: unknown, key: string) =>
    a.call('POST', path, { key, body, headers: { 'idempotency-key': `rate-${++n}` } });
  const payout = (body: object) =>
    post('/v1/payouts', { processor: 'zamtel-money', amount: 1, currency: 'ZMW', rate: 27, ...body }, s.supplierKey);
  const exchange = (body: object) =>
    post(
      '/v1/exchange-orders',
      { exchange: 'lusaka-fx', fiatAmount: 100, currency: 'ZMW', rate: 27, ...body },
      implementerKey,
    );

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log);
    a = api(hearth.port);
    s = await setUpScheme(a);
    let implementer = '';
    let regulatorKey = '';
    ({ implementer, implementerKey, regulatorKey } = await conversionParties(a));
    for (const [id, kind] of [
      ['lusaka-fx', 'exchange-operator'],
      ['zamtel-money', 'payment-processor'],
    ] as const) {
      expect((await a.call('POST', '/v1/counterparties', { body: { id, kind, name: id } })).status).toBe(201);
    }
    // The supplier's stablecoin: accepted CARBON converted through the pool.
    await issueToTreasury(a, implementerKey, 'cert-treasury', 1000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 1000);
    await stablecoinFromExchange(a, implementerKey, implementer, 2000);
    await depositToPool(a, implementerKey, { CARBON: 1000, USDC: 2000 }, 'seed');
    const voucherId = await issueVoucher(a, s, 'cert-household', 100);
    const claimId = await redeemAndClaim(a, s, voucherId, 30);
    await a.call('POST', `/v1/claims/${claimId}/accept`, { key: regulatorKey, body: {} });
    await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.available === 30);
    const converted = await post('/v1/conversions/carbon-to-stable', { amount: 30, minReceive: 0 }, s.supplierKey);
    expect(converted.status).toBe(201);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  /** A 400 VALIDATION_FAILED in the error body every route answers, naming the rate. */
  const refusedForRate = (
    r: { status: number; body: { statusCode: number; error: { details: Array<{ path: string }> } } },
    why: string,
  ) => {
    expect(r.status, why).toBe(400);
    expect(r.body.statusCode, why).toBe(400);
    expect(r.body.error, why).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^invalid body: rate: /),
      details: expect.arrayContaining([{ path: 'rate', message: expect.any(String) }]),
    });
    // 0.0000001 is both too small and too fine: every problem is the rate's.
    expect(new Set(r.body.error.details.map((i) => i.path)), why).toEqual(new Set(['rate']));
  };

  it('refuses a rate below 0.0001, above 1,000,000, of more than 6 decimal places, or not a number', async () => {
    for (const rate of [0.0000001, 0, -27, 0.00009, 1_000_000.5, 1e9, 27.1234567, '27', null]) {
      refusedForRate(await payout({ rate }), `payout at ${rate}`);
      refusedForRate(await exchange({ rate }), `exchange order at ${rate}`);
    }
    const none = await a.call('GET', '/v1/exchange-orders', { key: implementerKey });
    // Only the fixture's order (at a rate of 1): none of the refused ones was made.
    expect(none.body.total).toBe(1);
  });

  it('refuses an order whose amount at the rate would be nothing, or more than an amount may be', async () => {
    // 0.000001 of the stablecoin at 27 is 0.000027 ZMW: nothing, to the cent.
    refusedForRate(await payout({ amount: 0.000001 }), 'a payout of nothing');
    // 1e8 of the stablecoin at 27 would pay out 2.7e9 ZMW.
    refusedForRate(await payout({ amount: 100_000_000 }), 'a payout of too much fiat');
    // 0.000001 ZMW at 27 buys less than a micro-unit.
    refusedForRate(await exchange({ fiatAmount: 0.000001 }), 'an exchange order of nothing');
    // The rate that made 100 ZMW into 1e9 stablecoin is refused above; at the least rate allowed,
    // 1e6 ZMW would still buy 1e10: too much.
    refusedForRate(await exchange({ fiatAmount: 1_000_000, rate: 0.0001 }), 'an exchange order of too much');
  });

  it('still takes a good rate, and works the amounts out exactly', async () => {
    const paid = await payout({ amount: 1.5, rate: 27.123456 });
    expect(paid.status).toBe(201);
    // 1.5 × 27.123456 = 40.685184, to the cent.
    expect(paid.body).toMatchObject({ amount: 1.5, fiat: { amount: 40.69, currency: 'ZMW', rate: 27.123456 } });
    const small = await exchange({ fiatAmount: 0.3, rate: 0.1 });
    expect(small.status).toBe(201);
    // 0.3 / 0.1 is 3 exactly (in binary fractions, 2.9999999999999996).
    expect(small.body).toMatchObject({ amount: 3, fiat: { amount: 0.3, rate: 0.1 } });
    const bounds = await exchange({ fiatAmount: 100, rate: 0.0001 });
    expect(bounds.status).toBe(201);
    expect(bounds.body.amount).toBe(1_000_000);
    const top = await exchange({ fiatAmount: 1_000_000, rate: 1_000_000 });
    expect(top.status).toBe(201);
    expect(top.body.amount).toBe(1);
  });
});
