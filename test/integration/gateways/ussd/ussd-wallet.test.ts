import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import {
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  redeemAndClaim,
  stablecoinFromExchange,
} from '../../../support/conversion-fixtures.js';

const SUPPLIER_PHONE = '+260971000102';

/** A supplier with a basic phone sees its CARBON and stablecoin and converts, through USSD. */
describe('the supplier wallet over USSD', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let ussd: ReturnType<typeof ussdClient>;
  let n = 0;
  const sid = () => `ATUid_wallet_${Date.now()}_${++n}`;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '1000' }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    await a.call('PATCH', `/v1/suppliers/${encodeURIComponent(s.supplierDid)}`, {
      key: s.implementerKey,
      body: { name: 'Stoves', authorized: true, phoneNumber: SUPPLIER_PHONE },
    });
    const { implementer, implementerKey, regulatorKey } = await conversionParties(a);
    await issueToTreasury(a, implementerKey, 'cert-treasury', 1000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 1000);
    await stablecoinFromExchange(a, implementerKey, implementer, 2000);
    await depositToPool(a, implementerKey, { CARBON: 1000, USDC: 2000 }, 'seed');
    const voucherId = await issueVoucher(a, s, 'cert-household', 100);
    const accepted = await redeemAndClaim(a, s, voucherId, 30);
    await a.call('POST', `/v1/claims/${accepted}/accept`, { key: regulatorKey, body: {} });
    await redeemAndClaim(a, s, voucherId, 5);
    await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.available === 30 && b.pending === 5);
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
    const first = ussd.session(sid(), SUPPLIER_PHONE);
    await first.start();
    await first.send('1');
    await first.send('73914');
    await first.send('73914');
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('shows the balances behind the PIN and converts CARBON at the quoted price, less 1% at most', async () => {
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    expect(await phone.start()).toMatch(/^CON hearth\n1 Redeem a voucher\n2 My CARBON wallet\n/);
    expect(await phone.send('2')).toMatch(/^CON Enter your PIN to see your balance:/);
    expect(await phone.send('73914')).toMatch(
      /^CON CARBON: 30 \(waiting on claims: 5\)\nUSDC: 0\n1 Convert CARBON to money/,
    );
    expect(await phone.send('1')).toMatch(/^CON CARBON to convert \(you have 30\):/);
    const quote = (await a.call('GET', '/v1/pools/CARBON-USDC/quote?assetIn=CARBON&amount=10')).body
      .amountOut as number;
    const confirm = await phone.send('10');
    const min = Number(/at least ([0-9.]+) USDC/.exec(confirm)?.[1]);
    expect(min).toBeLessThan(quote);
    expect(min).toBeGreaterThanOrEqual(quote * 0.99 - 1e-6);
    expect(await phone.send('73914')).toBe(`END Converted 10 CARBON to ${quote} USDC.`);
    expect(await balanceOf(a, s.supplierDid, 'USDC', (b) => b.available > 0)).toMatchObject({ available: quote });
    expect((await balanceOf(a, s.supplierDid, 'CARBON', () => true)).available).toBe(20);
  });

  it('refuses more than is available, saying pending CARBON waits on its claims', async () => {
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    await phone.start();
    await phone.send('2');
    await phone.send('73914');
    await phone.send('1');
    await phone.send('25');
    expect(await phone.send('73914')).toMatch(/^END Not converted: 25 CARBON asked, 20 available \(pending CARBON/);
    expect((await balanceOf(a, s.supplierDid, 'CARBON', () => true)).available).toBe(20);
  });

  it('asks for the PIN again after a wrong one, converting nothing', async () => {
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    await phone.start();
    await phone.send('2');
    expect(await phone.send('11112')).toMatch(/^CON .*PIN/);
  });
});
