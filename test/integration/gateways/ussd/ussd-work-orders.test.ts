import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinStore } from '../../../../src/gateways/ussd/pin-store.js';
import { derivedId } from '../../../../src/actors/runtime/apply-batch.js';
import { isolated, testPinKey, type Isolated } from '../../../support/isolated.js';

/** A work order's id as the session actor makes it (`ctx.id()` of the message that asks). */
const workOrderId = (sessionId: string, msgId: string): string => derivedId('ussd', sessionId, msgId, 0);

/**
 * Two requests of one session can both carry out the work order the session is waiting on (an
 * aggregator's retry, a double tap): the PIN store must answer the second as it did the first.
 */
describe('USSD work orders carried out twice', () => {
  let env: Isolated;
  let pins: PinStore;
  const now = new Date('2026-11-23T08:00:00Z');
  const did = 'did:ixo:household-orders';
  let phoneSeq = 0;

  beforeAll(async () => {
    env = await isolated();
    pins = new PinStore(env.sql, testPinKey);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  async function phoneWithPin(mac: string): Promise<string> {
    const phone = `+2609720000${String(++phoneSeq).padStart(2, '0')}`;
    expect(await pins.create(phone, did, mac, now)).toBe(true);
    return phone;
  }

  const attempts = async (phone: string) =>
    (await env.sql<{ n: number }[]>`SELECT failed_attempts AS n FROM ussd_pins WHERE phone_number = ${phone}`)[0]?.n;

  it('counts a wrong PIN once per order, however often (and however concurrently) the order runs', async () => {
    const phone = await phoneWithPin('right');
    const order = workOrderId('ATUid_1', '1700000000000-0:0');
    const answers = await Promise.all([1, 2, 3].map(() => pins.verify(phone, did, 'wrong', now, order)));
    expect(answers).toEqual([1, 2, 3].map(() => ({ ok: false, reason: 'wrong:2' })));
    expect(await attempts(phone)).toBe(1);
    // Another order is another guess.
    const next = await pins.verify(phone, did, 'wrong', now, workOrderId('ATUid_1', '1700000000001-0:0'));
    expect(next).toEqual({ ok: false, reason: 'wrong:1' });
    expect(await attempts(phone)).toBe(2);
  });

  it('answers a repeated PIN change as it did, not by checking the old PIN against the new one', async () => {
    const phone = await phoneWithPin('old');
    const order = workOrderId('ATUid_2', '1700000000000-0:0');
    expect(await pins.change(phone, did, 'old', 'new', now, order)).toEqual({ ok: true });
    expect(await pins.change(phone, did, 'old', 'new', now, order)).toEqual({ ok: true });
    expect(await attempts(phone)).toBe(0);
    expect(await pins.verify(phone, did, 'new', now)).toEqual({ ok: true });
    expect(await pins.verify(phone, did, 'old', now)).toEqual({ ok: false, reason: 'wrong:2' });
  });

  it('changes nothing when the current PIN is wrong, and says so again when repeated', async () => {
    const phone = await phoneWithPin('old');
    const order = workOrderId('ATUid_3', '1700000000000-0:0');
    const [first, second] = await Promise.all([
      pins.change(phone, did, 'bad', 'new', now, order),
      pins.change(phone, did, 'bad', 'new', now, order),
    ]);
    expect(first).toEqual({ ok: false, reason: 'wrong:2' });
    expect(second).toEqual(first);
    expect(await pins.verify(phone, did, 'old', now)).toEqual({ ok: true });
  });

  it('keeps a bounded list of orders, and a number that changes hands starts with none', async () => {
    const phone = await phoneWithPin('right');
    for (let i = 0; i < 20; i++) await pins.verify(phone, did, 'right', now, workOrderId('ATUid_4', `${i}-0:0`));
    const [row] = await env.sql<{ n: number }[]>`
      SELECT jsonb_array_length(recent_orders) AS n FROM ussd_pins WHERE phone_number = ${phone}`;
    expect(row?.n).toBe(8);
    expect(await pins.create(phone, 'did:ixo:next-owner', 'theirs', now)).toBe(true);
    const [after] = await env.sql<{ n: number }[]>`
      SELECT jsonb_array_length(recent_orders) AS n FROM ussd_pins WHERE phone_number = ${phone}`;
    expect(after?.n).toBe(0);
  });

  it('gets order ids that differ between sessions, though two mailboxes can repeat an entry id', () => {
    expect(workOrderId('ATUid_a', '1700000000000-0:0')).not.toBe(workOrderId('ATUid_b', '1700000000000-0:0'));
  });
});
