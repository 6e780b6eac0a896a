import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { movableClock } from '../../../support/clock.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';

const HOUSEHOLD_PHONE = '+260971000301';
const PIN = '73914';

/** What a person with a basic phone meets in the field (issue 24), over POST /api/ussd. */
describe('USSD in the field', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let ussd: ReturnType<typeof ussdClient>;
  let n = 0;
  const sid = () => `field_${Date.now()}_${++n}`;
  const clock = movableClock();

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '1000' }),
      env.log,
      { clock },
    );
    a = api(hearth.port, clock);
    s = await setUpScheme(a);
    await a.call('PATCH', `/v1/households/${encodeURIComponent(s.household)}`, {
      key: s.implementerKey,
      body: { phoneNumber: HOUSEHOLD_PHONE },
    });
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const unserved = async (reason: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${hearth.port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`hearth_ussd_unserved_total{reason="${reason}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('counts every request it cannot serve in /metrics, by reason', async () => {
    const before = {
      malformed: await unserved('malformed'),
      phone: await unserved('phone'),
      service: await unserved('service_code'),
    };
    await ussd.post({ sessionId: sid(), text: '' }); // no phone number
    await fetch(`http://127.0.0.1:${hearth.port}/api/ussd`, { method: 'POST', body: '\u0000' });
    await ussd.post({ sessionId: sid(), phoneNumber: '12345', text: '' });
    await ussd.post({ sessionId: sid(), phoneNumber: HOUSEHOLD_PHONE, serviceCode: '*777#', text: '' });
    expect(await unserved('malformed')).toBe(before.malformed + 2);
    expect(await unserved('phone')).toBe(before.phone + 1);
    expect(await unserved('service_code')).toBe(before.service + 1);
  });

  it('knows one person by E.164 with or without +, and by the national number', async () => {
    const first = ussd.session(sid(), HOUSEHOLD_PHONE);
    expect(await first.start()).toMatch(/Create your PIN/);
    await first.send('1');
    await first.send(PIN);
    expect(await first.send(PIN)).toMatch(/Your PIN is set/);
    for (const phone of ['260971000301', '0971000301']) {
      const again = await ussd.session(sid(), phone).start();
      expect(again).toMatch(/^CON hearth/);
      expect(again).not.toMatch(/Create your PIN/);
    }
  });

  it('reaches the same screen by dialling *1234*1# as by *1234# then 1', async () => {
    const stepwise = ussd.session(sid(), '+260970000302');
    await stepwise.start();
    const viaMenu = await stepwise.send('1');
    const direct = await ussd.post({
      sessionId: sid(),
      phoneNumber: '+260970000302',
      serviceCode: '*1234*1#',
      text: '',
    });
    expect(direct).toMatchObject({ status: 200, text: viaMenu });
    // An aggregator that sends the dialled code with every request and the text typed since.
    const session = sid();
    const dialledFirst = await ussd.post({
      sessionId: session,
      phoneNumber: '+260970000302',
      serviceCode: '*1234*1#',
      text: '',
    });
    const next = await ussd.post({
      sessionId: session,
      phoneNumber: '+260970000302',
      serviceCode: '*1234*1#',
      text: '0',
    });
    expect(dialledFirst.text).toBe(viaMenu);
    expect(next.text).toMatch(/^CON Welcome to hearth/);
    expect(
      await ussd.post({ sessionId: sid(), phoneNumber: '+260970000302', serviceCode: '*4321*1#', text: '' }),
    ).toMatchObject({ text: 'END This service code is not available here.' });
  });

  it("serves the same over Africa's Talking's form posts: national numbers, dial-through, unreadable requests", async () => {
    // The household of the test above, by its national number, dialling through to "My vouchers".
    const direct = await ussd.post(
      { sessionId: sid(), phoneNumber: '0971000301', serviceCode: '*1234*1#', text: '', networkCode: '64501' },
      true,
    );
    expect(direct).toMatchObject({
      status: 200,
      text: expect.stringMatching(/^CON Enter your PIN to see your vouchers:/),
    });
    const unreadable = await ussd.post({ sessionId: sid(), phoneNumber: 'nobody', text: '' }, true);
    expect(unreadable).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^text\/plain/),
      text: 'END Your request could not be read. Please dial again.',
    });
    // A balance over a form post ends the session too.
    const phone = ussd.session(sid(), '260971000301', { form: true });
    await phone.start();
    await phone.send('1');
    expect(await phone.send(PIN)).toMatch(/^END You have no vouchers\.$/);
  });

  const outcomes = async (labels: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${hearth.port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`hearth_ussd_session_outcomes_total{${labels}}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  const report = (fields: Record<string, string>) =>
    fetch(`http://127.0.0.1:${hearth.port}/api/ussd/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  it("takes Africa's Talking's end-of-session report: closes the session, counts its outcome once", async () => {
    const phone = '+260970000303';
    const id = sid();
    const session = ussd.session(id, phone);
    await session.start();
    const listed = async () => {
      const r = await a.call('GET', '/api/ussd/sessions', { key: s.implementerKey });
      return (r.body.sessions as Array<{ sessionId: string }>).some((x) => x.sessionId === id);
    };
    expect(await listed()).toBe(true);
    const metrics = await (await fetch(`http://127.0.0.1:${hearth.port}/metrics`)).text();
    expect(Number(/^hearth_ussd_live_sessions (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    const labels = 'status="incomplete",service_code="*1234#",network="64501"';
    const before = await outcomes(labels);
    const fields = {
      sessionId: id,
      phoneNumber: phone.slice(1),
      serviceCode: '*1234#',
      networkCode: '64501',
      status: 'Incomplete',
      hopsCount: '1',
      durationInMillis: '21000',
      errorMessage: 'USER_TIMEOUT',
      date: '2026-11-24 10:00:00',
      cost: 'ZMW 0.0000',
    };
    const res = await report(fields);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');
    expect(await report(fields).then((r) => r.status)).toBe(200); // a retried report
    expect(await outcomes(labels)).toBe(before + 1);
    expect(await listed()).toBe(false);
    // A late request with the closed session's id is told the session is over.
    expect(await session.send('1')).toBe('END Your session has ended. Please dial again.');
  });

  it("closes nothing on another phone's report, and refuses a malformed one with 400", async () => {
    const phone = '+260970000304';
    const id = sid();
    const session = ussd.session(id, phone);
    await session.start();
    expect((await report({ sessionId: id, phoneNumber: '+260970000999', status: 'Success' })).status).toBe(200);
    expect(await session.send('1')).toMatch(/^CON /);
    for (const bad of [
      { status: 'Success', phoneNumber: phone },
      { sessionId: id, phoneNumber: phone },
      { sessionId: id, status: 'Success' },
    ] as Array<Record<string, string>>) {
      const res = await report(bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    }
  });
});
