import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVoucherCode } from '../../../../src/common/voucher-code.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';

const SUPPLIER_PHONE = '+260971000401';
const PIN = '73914';

/** Short numeric voucher codes (issue 24): over HTTP and over USSD. */
describe('voucher codes', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let voucherId = '';
  let code = '';
  let n = 0;
  const sid = () => `codes_${Date.now()}_${++n}`;

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
    voucherId = await issueVoucher(a, s, 'cert-codes', 100);
    code = String((await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey })).body.code);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  /** The same code with one digit changed: the check digit catches it. */
  const mistyped = (c: string) => `${c.slice(0, 4)}${(Number(c[4]) + 1) % 10}${c.slice(5)}`;
  /** A code with a right check digit that no voucher holds. */
  const unknownCode = () => {
    for (let i = 100_000_000; ; i++) {
      for (let check = 0; check < 10; check++) if (isVoucherCode(`${i}${check}`)) return `${i}${check}`;
    }
  };

  it('gives every voucher a 10-digit code with a check digit, and finds the voucher by it', async () => {
    expect(isVoucherCode(code)).toBe(true);
    expect(isVoucherCode(mistyped(code))).toBe(false);
    const byCode = await a.call('GET', `/v1/vouchers/${code}`, { key: s.implementerKey });
    expect(byCode.body).toMatchObject({ id: voucherId, code });
    const list = await a.call('GET', '/v1/vouchers', { key: s.implementerKey });
    expect((list.body.items as Array<{ id: string; code: string }>).find((v) => v.id === voucherId)?.code).toBe(code);
  });

  it('redeems by voucherCode, and tells a mistyped code from an unknown one', async () => {
    const redeem = (body: Record<string, unknown>) =>
      a.call('POST', '/v1/vouchers/redeem', {
        key: s.supplierKey,
        body: { supplierDid: s.supplierDid, amount: 1, productId: 'stove-1', ...body },
      });
    const r = await redeem({ voucherCode: code });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ voucherId, remainingBalance: 99 });
    const typo = await redeem({ voucherCode: mistyped(code) });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).toMatch(/mistyped/);
    const unknown = await redeem({ voucherCode: unknownCode() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('VOUCHER_NOT_FOUND');
    expect((await redeem({ voucherId, voucherCode: code })).status).toBe(400);
    expect((await redeem({})).status).toBe(400);
  });

  it('gives the vouchers issued before codes theirs in the migration, with the same check digit', async () => {
    const old = 'vch_0123456789abcdef0123456789';
    await env.sql`INSERT INTO voucher_views (key) VALUES (${old})`;
    const migration = readFileSync(
      new URL('../../../../src/store/migrations/016_voucher_codes.sql', import.meta.url),
      'utf8',
    );
    await env.sql.unsafe(migration.slice(migration.indexOf('DO $$')));
    const [row] = await env.sql<Array<{ code: string }>>`SELECT code FROM voucher_codes WHERE voucher_id = ${old}`;
    expect(isVoucherCode(row!.code)).toBe(true);
    // The voucher issued here kept its own.
    const [mine] = await env.sql<
      Array<{ code: string }>
    >`SELECT code FROM voucher_codes WHERE voucher_id = ${voucherId}`;
    expect(mine!.code).toBe(code);
  });

  it('takes the code over USSD: a typo at once, an unknown code at once, the right one to a redemption', async () => {
    const ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
    const setup = ussd.session(sid(), SUPPLIER_PHONE);
    await setup.start();
    await setup.send('1');
    await setup.send(PIN);
    expect(await setup.send(PIN)).toMatch(/Your PIN is set/);
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    await phone.start();
    expect(await phone.send('1')).toMatch(/^CON Enter the voucher code:/);
    expect(await phone.send(mistyped(code))).toMatch(
      /^CON That code is mistyped. Check each digit.\nEnter the voucher code:/,
    );
    expect(await phone.send(unknownCode())).toMatch(/^CON No voucher has that code.\nEnter the voucher code:/);
    expect(await phone.send(code)).toMatch(/^CON Choose the product:\n1 Clean stove/);
    await phone.send('1');
    expect(await phone.send('2')).toMatch(new RegExp(`^CON Redeem 2 of ${code} for Clean stove\\?`));
    expect(await phone.send(PIN)).toBe('END Redeemed 2. Remaining balance: 97.');
  });

  it('stops looking codes up for a phone after 10 unknown ones in a day', async () => {
    const ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    await phone.start();
    await phone.send('1');
    const wrong = unknownCode();
    let last = '';
    for (let i = 0; i < 10 && !last.startsWith('END'); i++) last = await phone.send(wrong);
    // The earlier test's unknown code counted too: the tenth ends the session, or the one after.
    if (!last.startsWith('END')) last = await phone.send(wrong);
    expect(last).toBe('END Too many unknown voucher codes today. Please try again tomorrow.');
    const again = ussd.session(sid(), SUPPLIER_PHONE);
    await again.start();
    await again.send('1');
    expect(await again.send(code)).toBe('END Too many unknown voucher codes today. Please try again tomorrow.');
  });
});
