import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { deadLettersOf } from '../../../support/runtime-harness.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';

const SUPPLIER_PHONE = '+260971000777';
const PIN = '73914';

describe('USSD sessions: lockout, restarts, concurrency, expiry, fuzz', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let voucherId = '';
  let now = Date.now();
  const clock = () => new Date(now);
  let n = 0;
  const sid = () => `sess-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  // A small body limit, so the fuzz can send bodies past it without moving gigabytes.
  const config = () =>
    env.config({
      HEARTH_ADMIN_KEY: adminKey,
      ACTOR_PARTITIONS: '2',
      USSD_RATE_PER_MINUTE: '10000',
      MAX_BODY_BYTES: '8192',
    });
  const client = () => ussdClient(`http://127.0.0.1:${hearth.port}`);

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(config(), env.log, { clock });
    a = api(hearth.port, clock);
    s = await setUpScheme(a);
    await a.call('PATCH', `/v1/suppliers/${encodeURIComponent(s.supplierDid)}`, {
      key: s.implementerKey,
      body: { name: 'Stoves', authorized: true, phoneNumber: SUPPLIER_PHONE },
    });
    voucherId = await issueVoucher(a, s, 'cert-robust', 100);
    const first = client().session(sid(), SUPPLIER_PHONE);
    await first.start();
    await first.send('1'); // Create your PIN
    await first.send(PIN);
    expect(await first.send(PIN)).toMatch(/Your PIN is set/);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  /** Walks a supplier session to the PIN confirmation of a redemption of 1. */
  async function toConfirmation(sessionId: string) {
    const phone = client().session(sessionId, SUPPLIER_PHONE);
    await phone.start();
    await phone.send('1');
    await phone.send(voucherId);
    await phone.send('1');
    expect(await phone.send('1')).toMatch(/Enter your PIN to confirm/);
    return phone;
  }

  it('counts wrong PINs across sessions and locks the phone for 30 minutes at the third', async () => {
    const one = await toConfirmation(sid());
    expect(await one.send('11112')).toMatch(/^CON Wrong PIN. 2 attempt\(s\) left./);
    expect(await one.send('11113')).toMatch(/^CON Wrong PIN. 1 attempt\(s\) left./);
    const two = await toConfirmation(sid());
    // Until 30 minutes from now, on the programme's clock (USSD_TIME_ZONE, Africa/Lusaka: UTC+2).
    const lusaka = new Date(now + 30 * 60 * 1000 + 2 * 3600 * 1000).toISOString().slice(11, 16);
    expect(await two.send('11114')).toMatch(
      new RegExp(`^END Too many wrong PINs. Your account is locked until (\\d\\d/\\d\\d )?${lusaka}\\.$`),
    );
    const three = await toConfirmation(sid());
    expect(await three.send(PIN)).toMatch(/^END Too many wrong PINs/); // even the right PIN, while locked
    now += 31 * 60 * 1000;
    const four = await toConfirmation(sid());
    expect(await four.send(PIN)).toBe('END Redeemed 1. Remaining balance: 99.');
  });

  it('doubles each lock in a row (30 min, then 1 h), and a right PIN starts over at 30 min', async () => {
    const lockOut = async () => {
      const s = await toConfirmation(sid());
      await s.send('11112');
      await s.send('11113');
      return s.send('11114');
    };
    expect(await lockOut()).toMatch(/^END Too many wrong PINs/);
    now += 31 * 60 * 1000; // the first lock (30 min) is over
    expect(await lockOut()).toMatch(/^END Too many wrong PINs/); // the second lock in a row: 1 h
    now += 31 * 60 * 1000;
    expect(await (await toConfirmation(sid())).send(PIN)).toMatch(/^END Too many wrong PINs/);
    now += 30 * 60 * 1000; // 61 min after the second lock
    expect(await (await toConfirmation(sid())).send(PIN)).toMatch(/^END Redeemed 1\./);
    // The right PIN ended the run of locks: the next one is 30 min again.
    expect(await lockOut()).toMatch(/^END Too many wrong PINs/);
    now += 31 * 60 * 1000;
    expect(await (await toConfirmation(sid())).send(PIN)).toMatch(/^END Redeemed 1\./);
  });

  it('continues a session across a restart of the service between two requests', async () => {
    const id = sid();
    const phone = client().session(id, SUPPLIER_PHONE);
    await phone.start();
    expect(await phone.send('1')).toMatch(/Enter the voucher code/);
    await hearth.close();
    hearth = await startHearth(config(), env.log, { clock });
    const resumed = client().session(id, SUPPLIER_PHONE);
    // The aggregator sends the whole text again; only the new input is applied.
    expect((await resumed.raw(`1*${voucherId}`)).text).toMatch(/^CON Choose the product:/);
  });

  it('serialises two concurrent requests of one session: no input is lost or applied twice', async () => {
    const id = sid();
    const phone = client().session(id, SUPPLIER_PHONE);
    await phone.start();
    const [short, long] = await Promise.all([phone.raw('1'), phone.raw(`1*${voucherId}`)]);
    expect([short.status, long.status]).toEqual([200, 200]);
    // Whichever came second saw every input once: the session stands at the product choice.
    expect((await phone.raw(`1*${voucherId}`)).text).toMatch(/^CON Choose the product:/);
    expect((await phone.raw(`1*${voucherId}*1`)).text).toMatch(/^CON Enter the amount:/);
  });

  it('ends a session idle for 180 s, and lists it as live only until then', async () => {
    const id = sid();
    const phone = client().session(id, SUPPLIER_PHONE);
    await phone.start();
    const listed = async () => {
      // A client of the current process (the restart test replaced the one `a` was made for).
      const r = await api(hearth.port, clock).call('GET', '/api/ussd/sessions', { key: adminKey });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.sessions as Array<{ sessionId: string }>).some((x) => x.sessionId === id);
    };
    now += 179_000;
    expect(await listed()).toBe(true);
    now += 2_000;
    expect(await listed()).toBe(false);
    expect(await phone.send('1')).toBe('END Your session has ended. Please dial again.');
  });

  it('counts parallel wrong PINs of one phone one at a time: two are wrong, the rest find it locked', async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => toConfirmation(sid())));
    const answers = await Promise.all(sessions.map((phone, i) => phone.send(`1111${i}`)));
    expect(answers.filter((x) => /Wrong PIN/.test(x))).toHaveLength(2);
    expect(answers.filter((x) => /^END Too many wrong PINs/.test(x))).toHaveLength(4);
    const late = await toConfirmation(sid());
    expect(await late.send(PIN)).toMatch(/^END Too many wrong PINs/);
    now += 31 * 60 * 1000;
  });

  it('answers 10,000 random requests with a 200 CON/END screen, never anything else, and stays up', async () => {
    const base = `http://127.0.0.1:${hearth.port}`;
    const texts = [
      '',
      '**',
      '*',
      '1*',
      '0*0*0',
      '00*00',
      '98*98*98',
      'x'.repeat(1000),
      'x'.repeat(1001),
      "'; DROP TABLE ussd_pins; --",
      '<script>alert(1)</script>',
      '%00',
      '\u0000',
      '\u0007bell',
      '🙂*🙂',
      'é*ü*ß',
      '\ud800',
      '1*2*3*4*5*6*7*8*9*10*11*12*13*14*15*16*17*18*19*20*21*22*23*24*25*26*27*28*29*30*31*32*33',
    ];
    const rnd = (k: number) => Math.floor(Math.random() * k);
    const randomText = () =>
      rnd(3) === 0
        ? texts[rnd(texts.length)]!
        : Array.from({ length: rnd(8) }, () => String.fromCharCode(32 + rnd(95))).join('*');
    const bodies = (): { body: string; type: string } => {
      const session = {
        sessionId: `fz${rnd(300)}`,
        phoneNumber: `+2609700${String(rnd(1000)).padStart(5, '0')}`,
        serviceCode: '*1234#',
      };
      switch (rnd(9)) {
        case 0:
          return {
            body: new URLSearchParams({ ...session, text: randomText() }).toString(),
            type: 'application/x-www-form-urlencoded',
          };
        case 1:
          return { body: JSON.stringify({ ...session, text: rnd(2) ? 42 : null }), type: 'application/json' };
        case 2:
          return { body: JSON.stringify([session]), type: 'application/json' };
        case 3:
          return { body: '{"sessionId":', type: 'application/json' };
        case 4:
          return { body: JSON.stringify({ ...session, phoneNumber: randomText() }), type: 'application/json' };
        case 5:
          return { body: JSON.stringify({ ...session, text: randomText() }), type: 'text/xml' };
        case 6:
          // Past MAX_BODY_BYTES: a request it cannot read (an END screen), not a 413 the aggregator would drop.
          return {
            body: JSON.stringify({ ...session, text: 'x'.repeat(8_192 + rnd(8_192)) }),
            type: 'application/json',
          };
        default:
          return {
            body: JSON.stringify({ ...session, text: randomText(), extra: { deep: [1, 2, 3] } }),
            type: 'application/json',
          };
      }
    };
    const statuses = new Map<number, number>();
    let bad = '';
    let busy = 0;
    for (let round = 0; round < 100; round++) {
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          const { body, type } = bodies();
          const res = await fetch(`${base}/api/ussd`, { method: 'POST', headers: { 'content-type': type }, body });
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (text.includes('The service is busy')) busy++;
          const fine = res.status === 200 && /^(CON|END) /.test(text);
          if (!fine) bad ||= `${res.status} ${text} for ${type} ${body.slice(0, 200)}`;
        }),
      );
    }
    expect(bad).toBe('');
    expect(busy).toBe(0); // no session failed: nothing was dead-lettered or timed out
    expect(await deadLettersOf(env, 'ussd', 2)).toEqual([]);
    expect([...statuses.values()].reduce((x, y) => x + y, 0)).toBe(10_000);
    expect(statuses.get(200)).toBe(10_000);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }, 120_000);
});
