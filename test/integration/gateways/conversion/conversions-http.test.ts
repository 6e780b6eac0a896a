import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import {
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  redeemAndClaim,
  stablecoinFromExchange,
} from '../../../support/conversion-fixtures.js';

/** Steps 1 and 3 of the token conversion flow over HTTP, with their refusals and reads. */
describe('conversions over HTTP', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let implementer = '';
  let implementerKey = '';
  let regulatorKey = '';
  let key = 0;
  const convert = (
    direction: 'carbon-to-stable' | 'stable-to-carbon',
    body: unknown,
    as: string,
    idempotencyKey: string | null = `k-${++key}`,
  ) =>
    a.call('POST', `/v1/conversions/${direction}`, {
      key: as,
      body,
      headers: idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey },
    });
  let voucherId = '';
  const balances = async (did: string) =>
    (await a.call('GET', `/v1/accounts/${encodeURIComponent(did)}`)).body.balances;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log);
    a = api(hearth.port);
    s = await setUpScheme(a);
    ({ implementer, implementerKey, regulatorKey } = await conversionParties(a));
    // The implementer's CARBON comes from a treasury issuance, its stablecoin from an exchange order.
    await issueToTreasury(a, implementerKey, 'cert-treasury', 1000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 1000);
    await stablecoinFromExchange(a, implementerKey, implementer, 2050);
    await depositToPool(a, implementerKey, { CARBON: 1000, USDC: 2000 }, 'seed');
    voucherId = await issueVoucher(a, s, 'cert-household', 100);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('keeps a redemption’s CARBON pending until a regulator accepts its claim; a rejection gives it back', async () => {
    const claimId = await redeemAndClaim(a, s, voucherId, 30);
    expect(await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.pending === 30)).toEqual({
      available: 0,
      held: 0,
      pending: 30,
    });
    const early = await convert('carbon-to-stable', { amount: 1, minReceive: 0 }, s.supplierKey);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { available: 0 } });
    expect((await a.call('POST', `/v1/claims/${claimId}/accept`, { key: s.supplierKey, body: {} })).status).toBe(403);
    const accepted = await a.call('POST', `/v1/claims/${claimId}/accept`, { key: regulatorKey, body: {} });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: claimId, status: 'accepted', decision: { by: expect.any(String) } });
    expect(await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.available === 30)).toEqual({
      available: 30,
      held: 0,
      pending: 0,
    });
    const other = await a.call('POST', `/v1/claims/${claimId}/reject`, { key: regulatorKey, body: { reason: 'late' } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CLAIM_ALREADY_DECIDED');

    const doubtful = await redeemAndClaim(a, s, voucherId, 5);
    await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.pending === 5);
    const rejected = await a.call('POST', `/v1/claims/${doubtful}/reject`, {
      key: regulatorKey,
      body: { reason: 'no delivery photo' },
    });
    expect(rejected.body).toMatchObject({ status: 'rejected', decision: { reason: 'no delivery photo' } });
    expect(await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.pending === 0)).toEqual({
      available: 30,
      held: 0,
      pending: 0,
    });
    const voucher = await eventually(
      async () => (await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey })).body,
      (v: { remainingBalance: number }) => v.remainingBalance === 70,
    );
    expect(voucher.remainingBalance).toBe(70);
  });

  it('converts a supplier’s CARBON to the stablecoin at the quoted price (201), once per Idempotency-Key', async () => {
    const quote = await a.call('GET', '/v1/pools/CARBON-USDC/quote?assetIn=CARBON&amount=10', { key: s.supplierKey });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ assetOut: 'USDC', feeBps: 30 });
    const r = await convert(
      'carbon-to-stable',
      { amount: 10, minReceive: quote.body.amountOut },
      s.supplierKey,
      'first',
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      direction: 'carbon-to-stable',
      status: 'completed',
      accountDid: s.supplierDid,
      assetIn: 'CARBON',
      amountIn: 10,
      assetOut: 'USDC',
      amountOut: quote.body.amountOut,
    });
    const again = await convert(
      'carbon-to-stable',
      { amount: 10, minReceive: quote.body.amountOut },
      s.supplierKey,
      'first',
    );
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(r.body.id);
    expect(await balances(s.supplierDid)).toEqual({
      CARBON: { available: 20, held: 0, pending: 0 },
      USDC: { available: quote.body.amountOut, held: 0, pending: 0 },
    });
    const read = await a.call('GET', `/v1/conversions/${r.body.id}`, { key: s.supplierKey });
    expect(read.body).toEqual(r.body);
    const list = await a.call('GET', '/v1/conversions', { key: s.supplierKey });
    expect(list.body).toMatchObject({ total: 2, items: [{ id: r.body.id }, { status: 'rejected' }] });
    const pool = await a.call('GET', '/v1/pools/CARBON-USDC', { key: s.supplierKey });
    expect(pool.body.reserves).toEqual({ CARBON: 1010, USDC: 2000 - quote.body.amountOut });
  });

  it('refuses the same Idempotency-Key with another body (409), and a conversion without one (400)', async () => {
    expect((await convert('carbon-to-stable', { amount: 1, minReceive: 0 }, s.supplierKey, 'twice')).status).toBe(201);
    const other = await convert('carbon-to-stable', { amount: 2, minReceive: 0 }, s.supplierKey, 'twice');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const none = await convert('carbon-to-stable', { amount: 1, minReceive: 0 }, s.supplierKey, null);
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('refuses more than is available (409 INSUFFICIENT_BALANCE) and a fill below minReceive (409 SLIPPAGE), moving nothing', async () => {
    const before = await balances(s.supplierDid);
    const poor = await convert('carbon-to-stable', { amount: 1000, minReceive: 0 }, s.supplierKey);
    expect(poor.status).toBe(409);
    expect(poor.body.error).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: '1000 CARBON asked, 19 available',
      details: { asset: 'CARBON', available: 19 },
    });
    const slipped = await convert('carbon-to-stable', { amount: 1, minReceive: 5 }, s.supplierKey);
    expect(slipped.status).toBe(409);
    expect(slipped.body.error).toMatchObject({ code: 'SLIPPAGE', details: { minOut: 5 } });
    expect(slipped.body.error.details.quote).toBeGreaterThan(1);
    expect(slipped.body.error.details.quote).toBeLessThan(2);
    const read = await a.call('GET', `/v1/conversions/${slipped.body.error.details.conversionId}`, {
      key: s.supplierKey,
    });
    expect(read.body).toMatchObject({ status: 'failed', failure: { code: 'SLIPPAGE' } });
    expect(await balances(s.supplierDid)).toEqual(before);
  });

  it('lets an implementer with a DID swap the stablecoin for CARBON (step 3)', async () => {
    const r = await convert('stable-to-carbon', { amount: 20, minReceive: 9 }, implementerKey);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      direction: 'stable-to-carbon',
      assetIn: 'USDC',
      assetOut: 'CARBON',
      status: 'completed',
    });
    const held = await balances(implementer);
    expect(held.USDC).toEqual({ available: 30, held: 0, pending: 0 });
    expect(held.CARBON.available).toBe(r.body.amountOut);
  });

  it('allows each step to its role only, and each account to its own DID', async () => {
    const wrongRole = await convert('carbon-to-stable', { amount: 1, minReceive: 0 }, implementerKey);
    expect(wrongRole.status).toBe(403);
    expect((await convert('stable-to-carbon', { amount: 1, minReceive: 0 }, s.supplierKey)).status).toBe(403);
    const noDid = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key;
    const anonymous = await convert('stable-to-carbon', { amount: 1, minReceive: 0 }, noDid);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.error.message).toMatch(/no DID/);
    const others = await a.call('GET', `/v1/accounts/${encodeURIComponent(implementer)}`, { key: s.supplierKey });
    expect(others.status).toBe(403);
    expect((await a.call('GET', `/v1/accounts/${encodeURIComponent(implementer)}`, { key: regulatorKey })).status).toBe(
      200,
    );
    const mine = (await a.call('GET', '/v1/conversions', { key: implementerKey })).body.items[0].id;
    expect((await a.call('GET', `/v1/conversions/${mine}`, { key: s.supplierKey })).status).toBe(404);
  });

  it('answers bad input with 400 and an unknown pool with 404', async () => {
    for (const body of [
      { amount: 1 },
      { amount: -1, minReceive: 0 },
      { amount: 1.0000001, minReceive: 0 },
      { amount: 1, minReceive: 0, x: 1 },
    ]) {
      expect((await convert('carbon-to-stable', body, s.supplierKey)).status).toBe(400);
    }
    expect((await a.call('GET', '/v1/pools/CARBON-EUR', { key: s.supplierKey })).status).toBe(404);
    expect(
      (await a.call('GET', '/v1/pools/CARBON-USDC/quote?assetIn=ITMO&amount=1', { key: s.supplierKey })).status,
    ).toBe(400);
  });
});
