import { describe, expect, it } from 'vitest';
import type { ActorContext } from '../../../../src/actors/runtime/types.js';
import { catalogs, t } from '../../../../src/actors/ussd/catalog/index.js';
import { en } from '../../../../src/actors/ussd/catalog/en.js';
import { installedFlows } from '../../../../src/actors/ussd/flows/index.js';
import { choose, endWith, screen } from '../../../../src/actors/ussd/flows/kit.js';
import type { FlowDefinition } from '../../../../src/actors/ussd/flows/registry.js';
import { ussdDecide } from '../../../../src/actors/ussd/logic.js';
import { buildMachine } from '../../../../src/actors/ussd/machine.js';
import type { HopReply, UssdSession } from '../../../../src/actors/ussd/index.js';
import type { UssdMessage } from '../../../../src/actors/ussd/messages.js';

/** The example flow of docs/ussd.md, as a deployer would write it (with catalog keys that exist). */
const callbackFlow: FlowDefinition = {
  id: 'callback',
  audiences: ['household'],
  label: 'unregistered.register',
  entry: 'callback_confirm',
  states: {
    callback_confirm: screen('menu', (c) => `${t(c.lang, 'unregistered.register')}?\n1 Yes`, [
      choose('1', 'done', { actions: endWith(() => 'We will call you back.') }),
    ]),
  },
};

function drive(flows: FlowDefinition[], lang?: string) {
  const decide = ussdDecide({ machine: buildMachine(flows), idleMs: 180_000, open: (sealed) => sealed });
  let state: UssdSession | undefined;
  let n = 0;
  let pending = '';
  let lastText = '';
  const step = (msg: UssdMessage): string => {
    const msgId = `${++n}-0`;
    const ctx: ActorContext = {
      type: 'ussd',
      key: 's',
      msgId,
      now: new Date(),
      id: (k = 0) => `${msgId}:${k}`,
      fact: () => undefined,
      tallies: () => ({}),
    };
    const d = decide(state, msg, ctx);
    state = d.state;
    const r = d.reply as HopReply;
    if (r.kind === 'work') pending = r.intentId;
    return r.kind === 'screen' ? r.text : `WORK ${r.intent.op}${'lang' in r.intent ? ` ${r.intent.lang}` : ''}`;
  };
  const hop = (text: string): string => {
    lastText = text;
    return step({
      kind: 'hop',
      sealedText: text,
      phoneNumber: '+1555000',
      serviceCode: '*1234#',
      audience: 'household',
      pinSet: true,
      ...(lang ? { lang } : {}),
    });
  };
  /** The gateway's answer to the work the session asked for (then the session goes on). */
  const resolve = (): string =>
    step({ kind: 'resolve', intentId: pending, sealedText: lastText, result: { ok: true } });
  return Object.assign(hop, { resolve });
}

describe('USSD flow registry and catalogs', () => {
  it("serves a deployer's flow from its menu entry, without touching the gateway or the session logic", () => {
    const hop = drive([...installedFlows(() => 'mac'), callbackFlow]);
    // The deployer's entry comes after the built-in ones, before the language choice.
    expect(hop('')).toMatch(/\n4 How to register\n5 Language\/Chiyankhulo\n\* Exit$/);
    expect(hop('4')).toMatch(/^CON How to register\?\n1 Yes/);
    expect(hop('4*1')).toBe('END We will call you back.');
  });

  it('refuses at start a flow whose state names collide with another flow or the machine, or whose entry is missing', () => {
    const flows = installedFlows(() => 'mac');
    const clash = { ...callbackFlow, id: 'clash', states: { menu: callbackFlow.states.callback_confirm! } };
    expect(() => buildMachine([...flows, clash])).toThrow(/flow "clash" names a state "menu", which the USSD machine/);
    const twice = { ...callbackFlow, id: 'twice' };
    expect(() => buildMachine([...flows, callbackFlow, twice])).toThrow(/"callback_confirm", which flow "callback"/);
    const lost = { ...callbackFlow, entry: 'nowhere' };
    expect(() => buildMachine([...flows, lost])).toThrow(/enters at "nowhere"/);
  });

  it('offers every installed language, and switches the texts', () => {
    catalogs.xx = { ...en, 'lang.name': 'Lingua', 'menu.title': 'foyer', 'menu.language': 'Lingua' };
    try {
      const hop = drive(installedFlows(() => 'mac'));
      expect(hop('')).toMatch(/^CON hearth\n.*\n4 Language\/Chiyankhulo\n\* Exit$/s);
      expect(hop('4')).toBe('CON Choose a language:\n1 English\n2 Chinyanja\n3 Lingua\n0 Back  00 Menu  * Exit');
      // The choice is kept for the phone's next sessions (the gateway stores it), then the menu.
      expect(hop('4*3')).toBe('WORK setLanguage xx');
      expect(hop.resolve()).toMatch(/^CON foyer\n/);
      // A session of a phone that chose it before starts in it; an unknown language is ignored.
      expect(
        drive(
          installedFlows(() => 'mac'),
          'xx',
        )(''),
      ).toMatch(/^CON foyer\n/);
      expect(
        drive(
          installedFlows(() => 'mac'),
          'zz',
        )(''),
      ).toMatch(/^CON hearth\n/);
    } finally {
      delete catalogs.xx;
    }
  });
});
