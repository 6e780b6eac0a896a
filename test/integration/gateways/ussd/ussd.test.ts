import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { movableClock } from '../../../support/clock.js';
import { countOf, isolated, type Isolated } from '../../../support/isolated.js';
import { ledgerRecords } from '../../../support/ledger-records.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { issueVoucher, newDidKey, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';

const HOUSEHOLD_PHONE = '+260971000001';
const SUPPLIER_PHONE = '+260971000002';

describe('USSD gateway (spec 002) end to end', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let ussd: ReturnType<typeof ussdClient>;
  let voucherId = '';
  let n = 0;
  const sid = () => `ATUid_${Date.now()}_${++n}`;
  const clock = movableClock();

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({
        HEARTH_ADMIN_KEY: adminKey,
        ACTOR_PARTITIONS: '2',
        ZM_SERVICE_CODES: '*1234#,*384*7#',
        USSD_RATE_PER_MINUTE: '1000',
      }),
      env.log,
      { clock },
    );
    a = api(hearth.port, clock);
    s = await setUpScheme(a);
    await a.call('PATCH', `/v1/households/${encodeURIComponent(s.household)}`, {
      key: s.implementerKey,
      body: { phoneNumber: HOUSEHOLD_PHONE },
    });
    await a.call('PATCH', `/v1/suppliers/${encodeURIComponent(s.supplierDid)}`, {
      key: s.implementerKey,
      body: { name: 'Stoves', authorized: true, phoneNumber: SUPPLIER_PHONE },
    });
    voucherId = await issueVoucher(a, s, 'cert-ussd', 100);
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('answers an unregistered phone with the information menu, in text/plain, and lets it leave', async () => {
    const phone = ussd.session(sid(), '+260970000099');
    const first = await phone.raw('');
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/plain/);
    expect(first.text).toMatch(/^CON Welcome to hearth/);
    expect(await phone.send('1')).toMatch(/^CON Registered households receive vouchers/);
    expect(await phone.send('*')).toBe('END Thank you for using hearth. Goodbye.');
  });

  it("takes a household through its first PIN, its vouchers, and a PIN change (form-encoded, as Africa's Talking sends)", async () => {
    const phone = ussd.session(sid(), HOUSEHOLD_PHONE, { form: true });
    // Spec 002: the first request returns the main menu; before a PIN, it offers only that.
    expect(await phone.start()).toBe('CON hearth\n1 Create your PIN\n2 Language/Chiyankhulo\n* Exit');
    expect(await phone.send('1')).toMatch(/^CON Create a 5-digit PIN:/);
    expect(await phone.send('11111')).toMatch(/all digits the same/);
    expect(await phone.send('48213')).toMatch(/^CON Enter the same PIN again:/);
    expect(await phone.send('48213')).toMatch(
      /^CON Your PIN is set.\nhearth\n1 My vouchers\n2 Answer a survey\n3 Change PIN/,
    );
    // Balances are money: they are shown to whoever knows the PIN, and a wrong one counts.
    expect(await phone.send('1')).toMatch(/^CON Enter your PIN to see your vouchers:/);
    expect(await phone.send('99999')).toMatch(/^CON Wrong PIN. 2 attempt\(s\) left.\nEnter your PIN to see/);
    // The balance is the answer: the session ends with it.
    const list = await phone.send('48213');
    // The household sees its voucher's code, the one it reads out to a supplier.
    const voucher = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey });
    expect(voucher.body.code).toMatch(/^[1-9][0-9]{9}$/);
    expect(list).toMatch(new RegExp(`^END ${String(voucher.body.code)}: 100 of 100 \\(active\\)`));
    const next = ussd.session(sid(), HOUSEHOLD_PHONE, { form: true });
    expect(await next.start()).toMatch(/^CON hearth\n1 My vouchers/);
    await changePin(next);
  });

  async function changePin(phone: ReturnType<typeof ussd.session>): Promise<void> {
    expect(await phone.send('3')).toMatch(/^CON Enter your current PIN:/);
    expect(await phone.send('99999')).toMatch(/^CON Create a 5-digit PIN:/); // the current PIN is checked at the end
    expect(await phone.send('52846')).toMatch(/Enter the same PIN again/);
    // The right PIN above reset the count: this wrong one is again the first.
    expect(await phone.send('52846')).toMatch(/^CON Wrong PIN. 2 attempt\(s\) left.\nEnter your current PIN:/);
    expect(await phone.send('48213')).toMatch(/^CON Create a 5-digit PIN:/);
    expect(await phone.send('52846')).toMatch(/Enter the same PIN again/);
    expect(await phone.send('52846')).toMatch(/^CON Your PIN was changed.\nhearth/);
  }

  it('keeps the PIN out of every store', async () => {
    // The account's creation is on its way to the ledger; the PIN is nowhere in clear.
    const created = await ledgerRecords(env.sql, { type: 'account.created' });
    expect(created.map((r) => r.payload.did)).toEqual([s.household]);
    const leaks = await countOf(env.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM actor_snapshots WHERE state::text LIKE '%52846%' OR state::text LIKE '%48213%'`);
    expect(leaks).toBe(0);
    // Nor in Redis: the mailbox entries carry the text sealed.
    const streams = await env.keysMatching(`${env.prefix}:{ussd:p*}`);
    expect(streams.length).toBeGreaterThan(0);
    for (const stream of streams) {
      const entries = JSON.stringify(await env.redis.xrange(stream, '-', '+'));
      expect(entries).not.toMatch(/48213|52846/);
    }
  });

  it("lets a household answer its project's open survey, stored as its survey response", async () => {
    const created = await a.call('POST', '/v1/surveys', {
      key: s.implementerKey,
      body: {
        type: 'BaselineSurvey',
        projectId: 'did:ixo:entity:p1', // the project of the voucher's certificate
        template: {
          eligibilityCriteria: true,
          socioEconomicData: false,
          cookingPatterns: true,
          stovePerceptions: false,
        },
        sampling: { method: 'stratified', size: 400, confidence: 0.95 },
      },
    });
    expect(created.status).toBe(201);
    const phone = ussd.session(sid(), HOUSEHOLD_PHONE);
    expect(await phone.start()).toMatch(/^CON hearth\n1 My vouchers\n2 Answer a survey/);
    expect(await phone.send('2')).toMatch(/^CON Q1\/6 Household size\? \(1-30\)\n00 Menu {2}\* Exit/);
    expect(await phone.send('0')).toMatch(/^CON Invalid choice.\nQ1\/6/); // out of range (min 1)
    expect(await phone.send('4')).toMatch(/^CON Q2\/6 Primary fuel\?\n1 firewood/);
    expect(await phone.send('9')).toMatch(/^CON Invalid choice./);
    expect(await phone.send('1')).toMatch(/^CON Q3\/6 Owns clean stove\?/);
    expect(await phone.send('0')).toMatch(/^CON Q2\/6/); // back to the previous question
    expect(await phone.send('2')).toMatch(/^CON Q3\/6/);
    await phone.send('2');
    expect(await phone.send('0')).toMatch(/^CON Q5\/6 Cooking location/); // 0 meals a day is an answer
    await phone.send('1');
    expect(await phone.send('5')).toBe('END Thank you. Your answers are saved.');
    const responses = await a.call('GET', `/v1/surveys/${created.body.id}/responses`, { key: s.implementerKey });
    expect(responses.body.items).toHaveLength(1);
    expect(responses.body.items[0]).toMatchObject({
      householdId: s.household,
      responses: {
        eligibility: { household_size: 4, primary_fuel: ['charcoal'], owns_clean_stove: ['no'] },
        cooking: { meals_per_day: 0, cooking_location: ['indoor'], fuel_spend_per_week: 5 },
      },
    });
    // Answered: nothing more to answer.
    const again = ussd.session(sid(), HOUSEHOLD_PHONE);
    await again.start();
    expect(await again.send('2')).toBe('END There is no survey for you to answer now.');
  });

  it('lets a supplier redeem: voucher, product, amount, PIN; the voucher actor applies its rules', async () => {
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    expect(await phone.start()).toBe('CON hearth\n1 Create your PIN\n2 Language/Chiyankhulo\n* Exit');
    expect(await phone.send('1')).toMatch(/^CON Create a 5-digit PIN:/);
    await phone.send('73914');
    expect(await phone.send('73914')).toMatch(/^CON Your PIN is set.\nhearth\n1 Redeem a voucher/);
    expect(await phone.send('1')).toMatch(/^CON Enter the voucher code:/);
    expect(await phone.send(voucherId)).toMatch(/^CON Choose the product:\n1 Clean stove/);
    expect(await phone.send('1')).toMatch(/^CON Enter the amount:/);
    expect(await phone.send('0')).toMatch(/^CON Invalid choice.\nEnter the amount:/); // 0 is an answer here, not "back"
    expect(await phone.send('30')).toMatch(new RegExp(`^CON Redeem 30 of ${voucherId} for Clean stove\\?`));
    expect(await phone.send('73914')).toBe('END Redeemed 30. Remaining balance: 70.');
    const v = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey });
    expect(v.body.remainingBalance).toBe(70);
    // The redemption is on its way to the ledger, from the voucher actor's own commit.
    const redeemed = await ledgerRecords(env.sql, { type: 'voucher.redeemed' });
    expect(redeemed.filter((r) => r.actorKey === voucherId).map((r) => r.payload.amount)).toEqual([30_000_000]); // micro-units

    const again = ussd.session(sid(), SUPPLIER_PHONE);
    await again.start();
    await again.send('1');
    await again.send(voucherId);
    await again.send('1');
    await again.send('500');
    expect(await again.send('73914')).toMatch(/^END Not redeemed: .*balance/i);
  });

  it('offers every approved product, by name, paged past one screen (not the first nine of the newest page)', async () => {
    // Eleven more approved products and two that are not: 12 choices, more than one screen.
    for (let i = 1; i <= 11; i++) {
      const id = `fuel-${String(i).padStart(2, '0')}`;
      await a.call('POST', '/v1/products', {
        key: s.implementerKey,
        body: { id, name: `Pellets ${String(i).padStart(2, '0')} kg`, approved: true },
      });
    }
    for (const id of ['aa-pending', 'zz-pending'])
      await a.call('POST', '/v1/products', {
        key: s.implementerKey,
        body: { id, name: `Awaiting ${id}`, approved: false },
      });
    // Approved, but outside this voucher's monitoring plan: not offered (a claim could not follow).
    await a.call('POST', '/v1/products', {
      key: s.implementerKey,
      body: { id: 'out-of-plan', name: 'Aardvark gas', approved: true },
    });
    const inPlan = Array.from({ length: 11 }, (_, i) => `fuel-${String(i + 1).padStart(2, '0')}`);
    const plan = {
      approvedProducts: ['stove-1', 'aa-pending', ...inPlan],
      acceptedCredentialTypes: ['ProductDeliveryCredential'],
      claimWindowDays: 30,
    };
    const patched = await a.call('PATCH', '/v1/certificates/cert-ussd', {
      key: s.implementerKey,
      body: { monitoringPlan: plan },
    });
    expect(patched.status).toBe(200);
    const phone = ussd.session(sid(), SUPPLIER_PHONE);
    await phone.start();
    await phone.send('1');
    const first = await phone.send(voucherId);
    expect(first).toMatch(/^CON Choose the product:\n1 Clean stove\n2 Pellets 01 kg\n/);
    expect(first).not.toContain('Awaiting');
    expect(first).not.toContain('Aardvark');
    expect(first).toContain('98 More');
    const pages = [first];
    while (pages.at(-1)!.includes('98 More')) pages.push(await phone.send('98'));
    const listed = pages.join('\n');
    expect(listed).toContain('12 Pellets 11 kg');
    expect(listed).not.toContain('Awaiting');
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(182 + 4); // "CON " + the screen
    // The twelfth is choosable, from the last page: the confirmation names it.
    expect(await phone.send('12')).toMatch(/^CON Enter the amount:/);
    expect(await phone.send('5')).toMatch(new RegExp(`^CON Redeem 5 of ${voucherId} for Pellets 11 kg\\?`));
    expect(await phone.send('*')).toMatch(/^END /);
  });

  it('honours a dial-through first request that already carries inputs', async () => {
    const r = await ussd.post({ sessionId: sid(), phoneNumber: SUPPLIER_PHONE, serviceCode: '*384*7#', text: '1' });
    expect(r.text).toMatch(/^CON Enter the voucher code:/);
  });

  it("knows a registered phone sent without the '+' and in national format", async () => {
    for (const phoneNumber of [SUPPLIER_PHONE.slice(1), '0971000002']) {
      const r = await ussd.post({ sessionId: sid(), phoneNumber, text: '1' });
      expect(r.text).toMatch(/^CON Enter the voucher code:/); // the supplier's menu, not the unregistered one
    }
  });

  it('ends an unknown service code and a request it cannot read with a clear line, always 200 text/plain', async () => {
    const r = await ussd.post({ sessionId: sid(), phoneNumber: HOUSEHOLD_PHONE, serviceCode: '*999#', text: '' });
    expect(r).toMatchObject({ status: 200, text: 'END This service code is not available here.' });
    const unreadable = 'END Your request could not be read. Please dial again.';
    expect(await ussd.post({ phoneNumber: HOUSEHOLD_PHONE, text: '' })).toMatchObject({
      status: 200,
      text: unreadable,
    });
    expect(await ussd.post({ sessionId: sid(), phoneNumber: 'call me', text: '' })).toMatchObject({
      status: 200,
      text: unreadable,
    });
    for (const [body, type] of [
      ['{', 'application/json'],
      ['<ussd/>', 'text/xml'],
      ['', 'application/json'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${hearth.port}/api/ussd`, {
        method: 'POST',
        body,
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe(unreadable);
    }
  });

  it('lists live sessions for operators only', async () => {
    const id = sid();
    await ussd.session(id, '+260970000123').start();
    const r = await a.call('GET', '/api/ussd/sessions', { key: s.implementerKey });
    expect(r.status).toBe(200);
    const mine = (r.body.sessions as Array<Record<string, unknown>>).find((x) => x.sessionId === id);
    expect(mine).toMatchObject({ phoneNumber: '+260970000123', serviceCode: '*1234#', state: 'menu' });
    expect(Object.keys(mine ?? {}).sort()).toEqual([
      'lastActivityAt',
      'phoneNumber',
      'serviceCode',
      'sessionId',
      'startedAt',
      'state',
    ]);
    expect(r.body.count).toBe(r.body.sessions.length);
    expect((await a.call('GET', '/api/ussd/sessions', { key: s.supplierKey })).status).toBe(403);
    expect((await a.call('GET', '/api/ussd/sessions', { key: '' })).status).toBe(401);
  });

  it('keeps a household registered by DID only out of the PIN flow until its phone is known', async () => {
    const did = newDidKey();
    await a.call('POST', '/v1/households', { key: s.implementerKey, body: { did } });
    const r = await ussd.post({ sessionId: sid(), phoneNumber: '+260970000555', text: '' });
    expect(r.text).toMatch(/^CON Welcome to hearth/);
  });

  it(
    "does not hand a reassigned number's PIN (or its lockout) to the number's new owner",
    { timeout: 30_000 },
    async () => {
      const phoneNumber = '+260971000077';
      const first = newDidKey();
      const second = newDidKey();
      const as = { key: s.implementerKey };
      await a.call('POST', '/v1/households', { ...as, body: { did: first, phoneNumber } });
      const old = ussd.session(sid(), phoneNumber);
      expect(await old.start()).toMatch(/^CON hearth\n1 Create your PIN/);
      expect(await old.send('1')).toMatch(/^CON Create a 5-digit PIN:/);
      await old.send('48213');
      expect(await old.send('48213')).toMatch(/^CON Your PIN is set/);
      // Two wrong PINs on the old owner's account (one short of its lockout).
      for (const wrong of ['11112', '11113']) {
        const change = ussd.session(sid(), phoneNumber);
        await change.start();
        await change.send('3');
        await change.send(wrong);
        await change.send('52846');
        expect(await change.send('52846')).toMatch(/Wrong PIN/);
      }
      // The registry moves the number to another household.
      await a.call('PATCH', `/v1/households/${encodeURIComponent(first)}`, {
        ...as,
        body: { phoneNumber: '+260971000078' },
      });
      await a.call('POST', '/v1/households', { ...as, body: { did: second, phoneNumber } });
      clock.advance(5_100); // past the 5 s the phone directory remembers the old owner
      const fresh = ussd.session(sid(), phoneNumber);
      expect(await fresh.start()).toMatch(/^CON hearth\n1 Create your PIN/);
      expect(await fresh.send('1')).toMatch(/^CON Create a 5-digit PIN:/);
      await fresh.send('70315');
      expect(await fresh.send('70315')).toMatch(/^CON Your PIN is set/);
      // The new PIN is the new owner's; one wrong guess is counted from zero (no inherited lockout).
      const change = ussd.session(sid(), phoneNumber);
      await change.start();
      await change.send('3');
      await change.send('48213'); // the old owner's PIN
      await change.send('52846');
      expect(await change.send('52846')).toMatch(/^CON Wrong PIN. 2 attempt\(s\) left/);
      const rows = await env.sql`SELECT did FROM ussd_pins WHERE phone_number = ${phoneNumber}`;
      expect(rows.map((r) => r.did)).toEqual([second]);
    },
  );
});
