import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import { isLocked, reasonText } from './change-pin.js';
import {
  accept,
  endWith,
  isOk,
  notice,
  resultOf,
  screen,
  valueOf,
  work,
  type FlowContext,
  type FlowEvent,
} from './kit.js';
import { samePinMac, type MacPin } from '../pin-mac.js';
import { isPinShape, refuseNewPin, weakPin } from './pin-rules.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

/**
 * A registered phone's first use: the main menu offers only this, a 5-digit PIN entered twice,
 * easy ones refused with the reason.
 */
export function pinSetupFlow(mac: MacPin): FlowDefinition {
  return {
    id: 'pinSetup',
    audiences: ['household', 'supplier'],
    label: 'pin.setupEntry',
    whilePinUnset: true,
    entry: 'pinSetup_create',
    states: {
      pinSetup_create: screen('pin', (c) => t(c.lang, 'pin.create'), [
        {
          guard: ({ event }: Args) => isPinShape(valueOf(event)) && !weakPin(valueOf(event)),
          target: 'pinSetup_confirm',
          actions: assign(({ event, context }: Args) => ({
            notice: null,
            data: { ...context.data, pinMac: mac(valueOf(event), context) },
          })),
        },
        refuseNewPin,
      ]),
      pinSetup_confirm: screen('pin', (c) => t(c.lang, 'pin.confirm'), [
        accept((v, c) => samePinMac(mac(v, c), c.data.pinMac), 'pinSetup_save'),
        { target: 'pinSetup_create', actions: notice('pin.mismatch') },
      ]),
      pinSetup_save: work(
        (c) => ({ op: 'setPin', pinMac: String(c.data.pinMac) }),
        [
          {
            guard: isOk,
            target: 'menu',
            actions: assign(({ context }: Args) => ({
              pinSet: true,
              data: {},
              notice: t(context.lang, 'pin.created'),
            })),
          },
          // Another session set a different PIN first: this one does not replace it.
          {
            target: 'done',
            actions: endWith((c, e) => (isLocked(resultOf(e)) ? reasonText(c, resultOf(e)) : t(c.lang, 'pin.exists'))),
          },
        ],
      ),
    },
  };
}
