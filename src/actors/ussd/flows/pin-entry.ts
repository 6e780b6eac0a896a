import { assign } from 'xstate';
import { resultOf, valueOf, type FlowContext, type FlowEvent } from './kit.js';
import type { MacPin } from '../pin-mac.js';
import { isPinShape } from './pin-rules.js';

type Args = { context: FlowContext; event: FlowEvent };

/**
 * The transition of a screen that asks for the PIN: five digits go on to `target`, kept only as
 * their keyed hash under `data[name]` (the digits themselves never reach the snapshot).
 */
export function enterPin(mac: MacPin, target: string, name = 'pinMac'): Record<string, unknown> {
  return {
    guard: ({ event }: Args) => isPinShape(valueOf(event)),
    target,
    actions: assign(({ event, context }: Args) => ({
      notice: null,
      data: { ...context.data, [name]: mac(valueOf(event), context) },
    })),
  };
}

/** The gateway found the PIN wrong (attempts are left: a locked PIN answers `locked:`). */
export const isWrongPin = ({ event }: { event: FlowEvent }): boolean => {
  const r = resultOf(event);
  return r?.ok === false && r.reason.startsWith('wrong:');
};
