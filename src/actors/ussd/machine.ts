import { assign, createMachine } from 'xstate';
import { catalogs, t } from './catalog/index.js';
import {
  choose,
  notice,
  screen,
  valueOf,
  work,
  type Audience,
  type FlowContext,
  type FlowEvent,
  type ScreenMeta,
} from './flows/kit.js';

const audiences: readonly Audience[] = ['household', 'supplier', 'unregistered'];
import type { FlowDefinition } from './flows/registry.js';

export interface MachineInput {
  phone: string;
  audience: Audience;
  pinSet: boolean;
  lang: string;
}

type Args = { context: FlowContext; event: FlowEvent };

/**
 * The main-menu entries of an audience: its flows with a label (for a registered phone, the
 * first PIN's until it has one, the others after), then the language choice when there are two.
 */
function menuEntries(
  flows: readonly FlowDefinition[],
  audience: Audience,
  pinSet: boolean,
): Array<{ label: string; target: string }> {
  const entries = flows
    .filter((f) => f.label && f.audiences.includes(audience))
    .filter((f) => audience === 'unregistered' || Boolean(f.whilePinUnset) === !pinSet)
    .map((f) => ({ label: f.label!, target: f.entry }));
  if (Object.keys(catalogs).length > 1) entries.push({ label: 'menu.language', target: 'language' });
  return entries;
}

/**
 * One xstate machine over every flow: a session starts at `menu` (spec 002: the first request
 * returns the main menu), which lists the audience's flows; `done` is the last screen. Flows'
 * states sit beside them; the session logic drives it with the pure `transition()` and keeps
 * `{value, context}` as the snapshot.
 */
export function buildMachine(flows: readonly FlowDefinition[]) {
  const flowStates = mergeStates(flows);
  const menuOf = (c: FlowContext) => menuEntries(flows, c.audience, c.pinSet);
  const config = {
    id: 'ussd',
    initial: 'start',
    context: ({ input }: { input: MachineInput }): FlowContext => ({
      lang: input.lang,
      phone: input.phone,
      audience: input.audience,
      pinSet: input.pinSet,
      notice: null,
      data: {},
    }),
    states: {
      start: { always: [{ target: 'menu' }] },
      menu: {
        meta: {
          screen: {
            kind: 'menu',
            body: (c: FlowContext) => {
              const title = c.audience === 'unregistered' ? t(c.lang, 'unregistered.title') : t(c.lang, 'menu.title');
              return [title, ...menuOf(c).map((e, i) => `${i + 1} ${t(c.lang, e.label as never)}`)].join('\n');
            },
          },
        } satisfies ScreenMeta,
        on: {
          INPUT: [
            ...audiences.flatMap((a) =>
              [true, false].flatMap((pinSet) =>
                menuEntries(flows, a, pinSet).map((e, i) => ({
                  guard: ({ event, context }: Args) =>
                    context.audience === a && context.pinSet === pinSet && valueOf(event) === String(i + 1),
                  target: e.target,
                  actions: assign({ notice: null, data: {} }),
                })),
              ),
            ),
            { actions: notice('common.invalid') },
          ],
        },
      },
      language: screen(
        'menu',
        (c) =>
          [t(c.lang, 'language.title'), ...Object.keys(catalogs).map((l, i) => `${i + 1} ${t(l, 'lang.name')}`)].join(
            '\n',
          ),
        Object.keys(catalogs).map((lang, i) => ({
          ...choose(String(i + 1), 'language_save'),
          actions: assign({ lang, notice: null }),
        })),
      ),
      // The choice is remembered for the phone's next sessions; the menu follows either way.
      language_save: work((c) => ({ op: 'setLanguage', lang: c.lang }), [{ target: 'menu' }]),
      done: {
        meta: {
          screen: {
            kind: 'end',
            body: (c: FlowContext) =>
              typeof c.data.endText === 'string' ? c.data.endText : t(c.lang, 'common.goodbye'),
          },
        },
      },
      ...flowStates,
    },
  };
  return createMachine(config as never);
}

/** The states the machine itself has; no flow may name one of its own so. */
const CORE_STATES = ['start', 'menu', 'language', 'language_save', 'done'];

/**
 * Every flow's states in one record. Two flows naming a state alike (or a flow naming one like
 * a core state) would silently replace one with the other: that stops the start instead.
 */
function mergeStates(flows: readonly FlowDefinition[]): Record<string, unknown> {
  const owner = new Map<string, string>(CORE_STATES.map((s) => [s, 'the USSD machine']));
  const merged: Record<string, unknown> = {};
  for (const f of flows) {
    for (const [name, state] of Object.entries(f.states)) {
      const taken = owner.get(name);
      if (taken) throw new Error(`USSD flow "${f.id}" names a state "${name}", which ${taken} already has`);
      owner.set(name, `flow "${f.id}"`);
      merged[name] = state;
    }
    if (!(f.entry in f.states)) throw new Error(`USSD flow "${f.id}" enters at "${f.entry}", which it does not define`);
  }
  return merged;
}
