import { describe, expect, it } from 'vitest';
import { sealText, ussdSessionActor, type HopReply, type UssdSession } from '../../../../src/actors/ussd/index.js';
import { splitInputs } from '../../../../src/actors/ussd/input.js';
import type { ActorContext } from '../../../../src/actors/runtime/types.js';

const KEY = 'k'.repeat(32);
const actor = ussdSessionActor({ pinKey: KEY, idleMs: 180_000 });

/** Drives one session through the pure decide, as the runtime would (JSON round trip included). */
function session(audience: 'household' | 'supplier' | 'unregistered', pinSet = true) {
  let state: UssdSession | undefined;
  let msgs = 0;
  let now = new Date('2026-11-22T08:00:00Z');
  const ctx = (): ActorContext => {
    const msgId = `${++msgs}-0`;
    return {
      type: 'ussd',
      key: 's1',
      msgId,
      now,
      id: (n = 0) => `${msgId}:${n}`,
      fact: () => undefined,
      tallies: () => ({}),
    };
  };
  const run = (msg: Parameters<typeof actor.decide>[1]): HopReply => {
    const d = actor.decide(state, msg, ctx());
    // Frozen, as the runtime's copy must stay untouched: a write into it by decide would throw.
    state = d.state === undefined ? undefined : deepFreeze(JSON.parse(JSON.stringify(d.state)) as UssdSession);
    return d.reply as HopReply;
  };
  return {
    hop: (text: string, phoneNumber = '+260971000001') =>
      run({ kind: 'hop', sealedText: sealText(KEY, text), phoneNumber, serviceCode: '*1234#', audience, pinSet }),
    resolve: (
      intentId: string,
      result: { ok: true; data?: Record<string, unknown> } | { ok: false; reason: string },
      text = '',
    ) => run({ kind: 'resolve', intentId, result, sealedText: sealText(KEY, text) }),
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    get state() {
      return state;
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const screenText = (r: HopReply): string => (r.kind === 'screen' ? r.text : `WORK ${r.intent.op}`);

describe('USSD session logic', () => {
  it('splits cumulative text, reading a lone * as the exit input', () => {
    expect(splitInputs('')).toEqual([]);
    expect(splitInputs('1*2*1234')).toEqual(['1', '2', '1234']);
    expect(splitInputs('1**')).toEqual(['1', '*']);
    expect(splitInputs('1*')).toEqual(['1', '']);
  });

  it('shows an unregistered phone the information menu and a way out', () => {
    const s = session('unregistered');
    expect(screenText(s.hop(''))).toMatch(/^CON Welcome to hearth.*\n1 About the programme\n.*\* Exit$/s);
    expect(screenText(s.hop('1'))).toMatch(/^CON Registered households receive vouchers/);
    expect(screenText(s.hop('1*1'))).toMatch(/register your phone number/);
    expect(screenText(s.hop('1*1*0'))).toMatch(/^CON Registered households/); // back
    expect(screenText(s.hop('1*1*0*00'))).toMatch(/^CON Welcome/); // home
    expect(screenText(s.hop('1*1*0*00**'))).toBe('END Thank you for using hearth. Goodbye.');
  });

  it('sets a first PIN, entered twice, refusing easy ones with the reason', () => {
    const s = session('household', false);
    expect(screenText(s.hop(''))).toBe('CON hearth\n1 Create your PIN\n2 Language/Chiyankhulo\n* Exit');
    expect(screenText(s.hop('3'))).toMatch(/^CON Invalid choice.\nhearth\n1 Create your PIN/); // nothing else yet
    expect(screenText(s.hop('3*1'))).toMatch(/^CON Create a 5-digit PIN:/);
    expect(screenText(s.hop('3*1*12345'))).toMatch(/PIN too easy to guess \(digits in sequence\)/);
    expect(screenText(s.hop('3*1*12345*11111'))).toMatch(/all digits the same/);
    // Not five digits is its own reason, not "too easy to guess".
    const short = session('household', false);
    short.hop('');
    short.hop('1');
    expect(screenText(short.hop('1*1234'))).toMatch(/^CON A PIN is exactly 5 digits.\nCreate a 5-digit PIN:/);
    expect(screenText(short.hop('1*1234*4821x'))).toMatch(/^CON A PIN is exactly 5 digits.\n/);
    expect(screenText(s.hop('3*1*12345*11111*48213'))).toMatch(/^CON Enter the same PIN again:/);
    expect(screenText(s.hop('3*1*12345*11111*48213*48214'))).toMatch(
      /^CON The PINs did not match.\nCreate a 5-digit PIN/,
    );
    const work = s.hop('3*1*12345*11111*48213*48214*48213*48213');
    expect(work.kind).toBe('work');
    if (work.kind !== 'work') return;
    expect(work.intent.op).toBe('setPin');
    expect(JSON.stringify(s.state)).not.toContain('48213'); // the PIN is never kept in clear
    expect(screenText(s.resolve(work.intentId, { ok: true }, '3*1*12345*11111*48213*48214*48213*48213'))).toMatch(
      /^CON Your PIN is set.\nhearth\n1 My vouchers/,
    );
  });

  it('pages a long list with 98 and keeps 0 as an answer on number screens', () => {
    const s = session('household');
    expect(screenText(s.hop('1'))).toMatch(/^CON Enter your PIN to see your vouchers:/);
    const work = s.hop('1*48213');
    if (work.kind !== 'work') throw new Error('expected work');
    const vouchers = Array.from({ length: 12 }, (_, i) => ({
      id: `vch_${i}abcdef`,
      remainingBalance: i,
      value: 100,
      status: 'active',
    }));
    const first = screenText(s.resolve(work.intentId, { ok: true, data: { vouchers } }, '1*48213'));
    expect(first.length).toBeLessThanOrEqual(182);
    expect(first).toContain('98 More');
    // A balance is a final screen: every page but the last goes on (98), the last ends the session.
    const pages = [first];
    let text = '1*48213';
    while (pages.at(-1)!.startsWith('CON ') && pages.length < 20) {
      text += '*98';
      pages.push(screenText(s.hop(text)));
    }
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.at(-1)).toMatch(/^END vch_/);
    expect(pages.at(-1)).not.toContain('98 More');
    expect(pages.every((p) => p.length <= 182)).toBe(true);
    expect(pages.join('\n')).toContain('vch_11abcdef: 11 of 100');
  });
});

describe('USSD session logic: long PIN screens', () => {
  it('pages a PIN screen whose text is long, so its prompt is never cut off, and takes the PIN on the last page', () => {
    const s = session('supplier');
    const voucher = `V${'x'.repeat(63)}`;
    const product = 'Clean cookstove model X-2000 deluxe edition with chimney kit and a two-year warranty';
    const work = s.hop(`1*${voucher}`);
    if (work.kind !== 'work') throw new Error('expected listProducts');
    s.resolve(work.intentId, { ok: true, data: { products: [{ id: 'p1', name: product }] } }, `1*${voucher}`);
    const first = screenText(s.hop(`1*${voucher}*1*30`));
    expect(first.length).toBeLessThanOrEqual(182);
    expect(first).toMatch(/\n98 More\n0 Back {2}00 Menu {2}\* Exit$/);
    const last = screenText(s.hop(`1*${voucher}*1*30*98`));
    expect(last.length).toBeLessThanOrEqual(182);
    expect(last).toMatch(/Enter your PIN to confirm:/);
    const redeem = s.hop(`1*${voucher}*1*30*98*73914`);
    expect(redeem.kind === 'work' && redeem.intent.op).toBe('redeem');
  });
});

describe('USSD session logic: vouchers behind the PIN', () => {
  it('asks for the PIN, sends only its hash, and keeps no hash once the gateway has answered', () => {
    const s = session('household');
    const work = s.hop('1*48213');
    if (work.kind !== 'work' || work.intent.op !== 'listVouchers') throw new Error('expected listVouchers');
    expect(work.intent.pinMac).toMatch(/^[A-Za-z0-9_-]{43}$/); // an HMAC-SHA256, base64url
    expect(JSON.stringify(work)).not.toContain('48213');
    const wrong = s.resolve(work.intentId, { ok: false, reason: 'wrong:2' }, '1*48213');
    expect(screenText(wrong)).toMatch(/^CON Wrong PIN. 2 attempt\(s\) left.\nEnter your PIN to see your vouchers:/);
    expect(JSON.stringify(s.state)).not.toContain(work.intent.pinMac);
    const again = s.hop('1*48213*52846');
    if (again.kind !== 'work') throw new Error('expected work');
    const listed = s.resolve(again.intentId, { ok: true, data: { vouchers: [] } }, '1*48213*52846');
    expect(screenText(listed)).toMatch(/^END You have no vouchers.$/);
    expect(JSON.stringify(s.state)).not.toMatch(/pinMac/);
  });

  it('ends the session when the PIN is locked', () => {
    const s = session('household');
    const work = s.hop('1*48213');
    if (work.kind !== 'work') throw new Error('expected work');
    const locked = s.resolve(work.intentId, { ok: false, reason: 'locked:09:30' }, '1*48213');
    expect(screenText(locked)).toBe('END Too many wrong PINs. Your account is locked until 09:30.');
  });
});

describe('USSD session logic: wrong input on every screen', () => {
  /** Sends `bad` before each valid input of a path: the screen must stay, saying so. */
  function walk(
    audience: 'household' | 'supplier' | 'unregistered',
    path: string[],
    results: Record<number, unknown> = {},
  ) {
    const s = session(audience);
    const inputs: string[] = [];
    let screen = screenText(s.hop(''));
    path.forEach((input, step) => {
      // 77 is no menu choice, but it is a fine amount on a number screen.
      const numberScreen = screen.includes('00 Menu  * Exit');
      for (const bad of numberScreen ? ['zz', ''] : ['zz', '77', '']) {
        const text = [...inputs, bad].join('*');
        const r = s.hop(text);
        // The input is consumed (the text moves on), but the screen is the same, with a notice.
        const notice = /^CON (Invalid choice\.|A PIN is exactly 5 digits\.)\n/;
        expect(screenText(r), `"${bad}" at step ${step} (${screen.slice(0, 40)})`).toMatch(notice);
        expect(screenText(r).replace(notice, 'CON ')).toBe(screen.replace(notice, 'CON '));
        inputs.push(bad);
      }
      inputs.push(input);
      let r = s.hop(inputs.join('*'));
      if (r.kind === 'work')
        r = s.resolve(r.intentId, (results[step] ?? { ok: true }) as { ok: true }, inputs.join('*'));
      screen = screenText(r);
    });
    return screen;
  }

  it('keeps every screen of the unregistered, household and supplier flows on a wrong input', () => {
    expect(walk('unregistered', ['1', '1'])).toMatch(/register your phone/);
    const vouchers = {
      ok: true,
      data: { vouchers: [{ id: 'vch_1', remainingBalance: 5, value: 10, status: 'active' }] },
    };
    expect(walk('household', ['1', '48213'], { 1: vouchers })).toMatch(/vch_1: 5 of 10/);
    const products = { ok: true, data: { products: [{ id: 'p1', name: 'Stove' }] } };
    expect(walk('supplier', ['1', 'vch_123', '1', '3'], { 1: products })).toMatch(/Enter your PIN to confirm/);
    expect(walk('household', ['3', '52846', '48213'])).toMatch(/Enter the same PIN again/);
  });
});
