import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { verifyJournal } from '../../../../src/ledger/verify.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { unchainedEntries } from '../../../support/ledger-records.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import {
  addSupplier,
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  redeemAndClaim,
  stablecoinFromExchange,
} from '../../../support/conversion-fixtures.js';

const SUPPLIERS = 200;

/**
 * 200 suppliers convert their accepted CARBON against one pool at the same moment, over HTTP: the
 * pool serialises the swaps, so every one fills at the price the ones before it left, and the
 * pool's reserves, the suppliers' balances and the ledger must all agree on the sum of the fills.
 */
describe('200 suppliers converting at once against one pool', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  const suppliers: Scheme[] = [];

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4', RATE_LIMIT_API_KEY_PER_MINUTE: '0' }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    const { implementer, implementerKey, regulatorKey } = await conversionParties(a);
    await issueToTreasury(a, implementerKey, 'cert-treasury', 10_000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 10_000);
    await stablecoinFromExchange(a, implementerKey, implementer, 20_000);
    await depositToPool(a, implementerKey, { CARBON: 10_000, USDC: 20_000 }, 'seed');
    const voucherId = await issueVoucher(a, s, 'cert-household', 10 * SUPPLIERS);
    for (let i = 0; i < SUPPLIERS; i++) {
      const supplier = await addSupplier(a, s, `supplier ${i}`);
      const claimId = await redeemAndClaim(a, supplier, voucherId, 10);
      await a.call('POST', `/v1/claims/${claimId}/accept`, { key: regulatorKey, body: {} });
      suppliers.push(supplier);
    }
    for (const supplier of suppliers) await balanceOf(a, supplier.supplierDid, 'CARBON', (b) => b.available === 10);
  }, 300_000);

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('fills every conversion once; the pool’s reserves, the balances and the ledger agree on the fills', async () => {
    const answers = await Promise.all(
      suppliers.map((supplier, i) =>
        a.call('POST', '/v1/conversions/carbon-to-stable', {
          key: supplier.supplierKey,
          body: { amount: 10, minReceive: 0 },
          headers: { 'idempotency-key': `all-at-once-${i}` },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(suppliers.map(() => 201));
    const fills = answers.map((r) => BigInt(Math.round(r.body.amountOut * 1e6)));
    // Each later swap gets a worse price: the fills are all different and all below the first quote.
    expect(new Set(fills).size).toBe(SUPPLIERS);
    const paidOut = fills.reduce((t, f) => t + f, 0n);
    const pool = (await a.call('GET', '/v1/pools/CARBON-USDC')).body;
    expect(pool.reserves.CARBON).toBe(10_000 + 10 * SUPPLIERS);
    expect(BigInt(Math.round(pool.reserves.USDC * 1e6))).toBe(20_000_000_000n - paidOut);
    // k = CARBON × USDC never fell.
    expect(
      BigInt(Math.round(pool.reserves.CARBON * 1e6)) * BigInt(Math.round(pool.reserves.USDC * 1e6)),
    ).toBeGreaterThanOrEqual(10_000_000_000n * 20_000_000_000n);
    for (const [i, supplier] of suppliers.entries()) {
      const usdc = await balanceOf(a, supplier.supplierDid, 'USDC', (b) => b.available > 0);
      expect(BigInt(Math.round(usdc.available * 1e6))).toBe(fills[i]);
      expect((await balanceOf(a, supplier.supplierDid, 'CARBON', () => true)).available).toBe(0);
    }
    await eventually(
      () => unchainedEntries(env.sql),
      (left) => left === 0,
    );
    const verified = await verifyJournal(env.sql);
    expect(verified.bad).toBeUndefined();
    expect(verified.assets!.USDC!.held).toBe(verified.assets!.USDC!.minted);
  }, 120_000);
});
