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

/** The main-menu entries of an audience: its flows with a label, then the language choice when there are two. */
export function menuEntries(
  flows: readonly FlowDefinition[],
  audience: Audience,
): Array<{ label: string; target: string }> {
  const entries = flows
    .filter((f) => f.label && f.audiences.includes(audience))
    .map((f) => ({ label: f.label!, target: f.entry }));
  if (Object.keys(catalogs).length > 1) entries.push({ label: 'menu.language', target: 'language' });
  return entries;
}

/**
 * One xstate machine over every flow: `start` routes a new session (a first PIN for a registered
 * phone without one, else the menu), `menu` lists the audience's flows, `done` is the last
 * screen. Flows' states sit beside them; the session logic drives it with the pure
 * `transition()` and keeps `{value, context}` as the snapshot.
 */
export function buildMachine(flows: readonly FlowDefinition[]) {
  const flowStates = Object.assign({}, ...flows.map((f) => f.states)) as Record<string, unknown>;
  const menuOf = (c: FlowContext) => menuEntries(flows, c.audience);
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
      start: {
        always: [
          {
            guard: ({ context }: Args) => context.audience !== 'unregistered' && !context.pinSet,
            target: 'pinSetup_create',
          },
          { target: 'menu' },
        ],
      },
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
              menuEntries(flows, a).map((e, i) => ({
                guard: ({ event, context }: Args) => context.audience === a && valueOf(event) === String(i + 1),
                target: e.target,
                actions: assign({ notice: null, data: {} }),
              })),
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
