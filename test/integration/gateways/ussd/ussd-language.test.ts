import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { catalogs } from '../../../../src/actors/ussd/catalog/index.js';
import { en } from '../../../../src/actors/ussd/catalog/en.js';
import { adminKey, api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { issueVoucher, setUpScheme } from '../../../support/voucher-fixtures.js';

const ny = catalogs.ny!;

/** English texts (their parts between placeholders, 8 characters or more) that a screen shows. */
function englishIn(screen: string): string[] {
  const parts = Object.values(en).flatMap((text) => text.split(/\{\w+\}/).map((p) => p.trim()));
  const nyanja = Object.values(ny).join('\n');
  return parts.filter((p) => p.length >= 8 && !nyanja.includes(p) && screen.includes(p));
}

describe('USSD in Nyanja: a language chosen once is the phone’s language', () => {
  let env: Isolated;
  let hearth: Hearth;
  let ussd: ReturnType<typeof ussdClient>;
  let n = 0;
  const sid = () => `ATUid_lang_${Date.now()}_${++n}`;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '1000' }),
      env.log,
    );
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('asks once, then opens every later session of that phone in the chosen language', async () => {
    const phone = '+260970000321';
    const first = ussd.session(sid(), phone);
    const menu = await first.start();
    expect(menu).toMatch(/^CON Welcome to hearth/);
    const entry = /\n(\d+) Language\/Chiyankhulo/.exec(menu)?.[1];
    expect(entry).toBeDefined();
    expect(await first.send(entry!)).toMatch(/^CON Choose a language:\n1 English\n2 Chinyanja/);
    expect(await first.send('2')).toMatch(/^CON Takulandirani ku thandizo/);
    // A new session of the same phone: the menu is in Nyanja from its first screen.
    expect(await ussd.session(sid(), phone).start()).toMatch(/^CON Takulandirani ku thandizo/);
    // Another phone still starts in English.
    expect(await ussd.session(sid(), '+260970000322').start()).toMatch(/^CON Welcome to hearth/);
    const rows = await env.sql`SELECT language FROM ussd_preferences WHERE phone_number = ${phone}`;
    expect(rows.map((r) => r.language)).toEqual(['ny']);
  });

  it('shows a supplier who chose Nyanja every screen of a whole redemption in Nyanja', async () => {
    const a = api(hearth.port);
    const s = await setUpScheme(a);
    const phone = '+260971000323';
    await a.call('PATCH', `/v1/suppliers/${encodeURIComponent(s.supplierDid)}`, {
      key: s.implementerKey,
      body: { name: 'Stoves', authorized: true, phoneNumber: phone },
    });
    const voucherId = await issueVoucher(a, s, 'cert-nyanja', 100);
    const code = String((await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey })).body.code);

    const screens: string[] = [];
    const see = async (reply: Promise<string>): Promise<string> => {
      const text = await reply;
      screens.push(text);
      return text;
    };
    const choose = ussd.session(sid(), phone);
    const menu = await see(choose.start());
    await see(choose.send(/\n(\d+) Language\/Chiyankhulo/.exec(menu)![1]!));
    screens.length = 0; // the choice itself is made in English
    expect(await see(choose.send('2'))).toMatch(new RegExp(`^CON hearth\\n1 ${ny['pin.setupEntry']}`));
    expect(await see(choose.send('1'))).toMatch(new RegExp(`^CON ${ny['pin.create']}`));
    await see(choose.send('73914'));
    expect(await see(choose.send('73914'))).toMatch(new RegExp(`^CON ${ny['pin.created']}`));

    const redeem = ussd.session(sid(), phone);
    expect(await see(redeem.start())).toMatch(new RegExp(`^CON hearth\\n1 ${ny['supplier.redeem']}`));
    expect(await see(redeem.send('1'))).toMatch(new RegExp(`^CON ${ny['redeem.voucher']}`));
    expect(await see(redeem.send(code))).toMatch(new RegExp(`^CON ${ny['redeem.product']}\\n1 Clean stove`));
    expect(await see(redeem.send('1'))).toMatch(new RegExp(`^CON ${ny['redeem.amount']}`));
    expect(await see(redeem.send('5'))).toMatch(/^CON Gwiritsani 5 ya \d{10} pa Clean stove\?/);
    expect(await see(redeem.send('73914'))).toBe('END Mwagwiritsa 5. Zotsala: 95.');
    expect(englishIn(`CON ${en['redeem.amount']}`)).not.toEqual([]); // the check sees English
    for (const screen of screens) expect(englishIn(screen), screen).toEqual([]);
    // The footers too: every CON screen says how to leave in Nyanja.
    for (const screen of screens.filter((x) => x.startsWith('CON '))) expect(screen).toMatch(/\* Tulukani$/);
  });
});
