import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import {
  endWith,
  isOk,
  notice,
  resultOf,
  screen,
  valueOf,
  work,
  type FlowContext,
  type FlowEvent,
  type IntentResult,
} from './kit.js';
import { samePinMac, type MacPin } from '../pin-mac.js';
import { isPinShape, refuseNewPin, weakPin } from './pin-rules.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

/** Change PIN: the current one, then the new one twice; the gateway checks the current one. */
export function changePinFlow(mac: MacPin): FlowDefinition {
  const keep = (name: string) =>
    assign(({ event, context }: Args) => ({
      notice: null,
      data: { ...context.data, [name]: mac(valueOf(event), context) },
    }));
  return {
    id: 'changePin',
    audiences: ['household', 'supplier'],
    label: 'household.changePin',
    entry: 'changePin_current',
    states: {
      changePin_current: screen('pin', (c) => t(c.lang, 'pin.enterCurrent'), [
        {
          guard: ({ event }: Args) => isPinShape(valueOf(event)),
          target: 'changePin_new',
          actions: keep('currentMac'),
        },
      ]),
      changePin_new: screen('pin', (c) => t(c.lang, 'pin.create'), [
        {
          guard: ({ event }: Args) => isPinShape(valueOf(event)) && !weakPin(valueOf(event)),
          target: 'changePin_confirm',
          actions: keep('nextMac'),
        },
        refuseNewPin,
      ]),
      changePin_confirm: screen('pin', (c) => t(c.lang, 'pin.confirm'), [
        {
          guard: ({ event, context }: Args) => samePinMac(mac(valueOf(event), context), context.data.nextMac),
          target: 'changePin_save',
          actions: assign({ notice: null }),
        },
        { target: 'changePin_new', actions: notice('pin.mismatch') },
      ]),
      changePin_save: work(
        (c) => ({ op: 'changePin', currentMac: String(c.data.currentMac), nextMac: String(c.data.nextMac) }),
        [
          {
            guard: isOk,
            target: 'menu',
            actions: assign(({ context }: Args) => ({ data: {}, notice: t(context.lang, 'pin.changed') })),
          },
          {
            guard: ({ event }: Args) => resultOf(event)?.ok === false && !isLocked(resultOf(event)),
            target: 'changePin_current',
            actions: assign(({ context, event }: Args) => ({ notice: `${reasonText(context, resultOf(event))} ` })),
          },
          { target: 'done', actions: endWith((c, e) => reasonText(c, resultOf(e))) },
        ],
      ),
    },
  };
}

export const isLocked = (r: IntentResult | undefined): boolean => r?.ok === false && r.reason.startsWith('locked:');

/** A refused PIN check or operation, as the phone shows it: wrong (attempts left), locked, or the rule. */
export function reasonText(c: FlowContext, r: IntentResult | undefined): string {
  if (!r || r.ok) return t(c.lang, 'common.unavailable');
  const cut = r.reason.indexOf(':');
  const [kind, value] = cut < 0 ? [r.reason, ''] : [r.reason.slice(0, cut), r.reason.slice(cut + 1)];
  if (kind === 'locked') return t(c.lang, 'pin.locked', { until: value ?? '' });
  if (kind === 'wrong') return `${t(c.lang, 'pin.wrong', { left: value ?? '0' })}`.trim();
  return r.reason;
}
