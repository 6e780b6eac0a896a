import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../src/hearth.js';
import { catalogs } from '../../src/actors/ussd-session/catalog/index.js';
import { en } from '../../src/actors/ussd-session/catalog/en.js';
import { isolated, type Isolated } from '../support/isolated.js';
import { ussdClient } from '../support/ussd-client.js';

describe('USSD: a language chosen once is the phone’s language in its next sessions', () => {
  let env: Isolated;
  let hearth: Hearth;
  let ussd: ReturnType<typeof ussdClient>;
  let n = 0;
  const sid = () => `ATUid_lang_${Date.now()}_${++n}`;

  beforeAll(async () => {
    // A second catalog, installed before the machine is built (as a deployer's would be).
    catalogs.xx = { ...en, 'lang.name': 'Lingua', 'unregistered.title': 'Benvenuto' };
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '1000' }), env.log);
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
  });

  afterAll(async () => {
    delete catalogs.xx;
    await hearth.close();
    await env.cleanup();
  });

  it('asks once, then opens every later session of that phone in the chosen language', async () => {
    const phone = '+260970000321';
    const first = ussd.session(sid(), phone);
    const menu = await first.start();
    expect(menu).toMatch(/^CON Welcome to hearth/);
    const entry = /\n(\d+) Language/.exec(menu)?.[1];
    expect(entry).toBeDefined();
    expect(await first.send(entry!)).toMatch(/^CON Choose a language:\n1 English\n2 Lingua/);
    expect(await first.send('2')).toMatch(/^CON Benvenuto/);
    // A new session of the same phone: the menu is in Lingua from its first screen.
    expect(await ussd.session(sid(), phone).start()).toMatch(/^CON Benvenuto/);
    // Another phone still starts in English.
    expect(await ussd.session(sid(), '+260970000322').start()).toMatch(/^CON Welcome to hearth/);
    const rows = await env.sql`SELECT language FROM ussd_preferences WHERE phone_number = ${phone}`;
    expect(rows.map((r) => r.language)).toEqual(['xx']);
  });
});
