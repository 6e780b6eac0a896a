import { t, type TextKey } from '../catalog/index.js';
import { valueOf, type FlowContext, type FlowEvent } from './kit.js';
import { assign } from 'xstate';

const common = new Set(['12345', '54321', '11111', '00000', '12321', '13579', '24680', '98765', '56789', '01234']);

/** Why a new PIN is refused (a catalog key), or undefined when it is acceptable. */
export function weakPin(pin: string): TextKey | undefined {
  if (!/^[0-9]{5}$/.test(pin)) return 'pin.format';
  if (/^(\d)\1{4}$/.test(pin)) return 'pin.weak.repeated';
  const steps = [...pin].slice(1).map((d, i) => Number(d) - Number(pin[i]));
  if (steps.every((s) => s === 1) || steps.every((s) => s === -1)) return 'pin.weak.sequence';
  if (common.has(pin)) return 'pin.weak.common';
  return undefined;
}

export const isPinShape = (v: string): boolean => /^[0-9]{5}$/.test(v);

/**
 * A new PIN refused, with its reason on the screen: not five digits ("A PIN is exactly 5
 * digits"), or five digits that are too easy to guess (which way).
 */
export const refuseNewPin = {
  actions: assign(({ context, event }: { context: FlowContext; event: FlowEvent }) => {
    const why = weakPin(valueOf(event)) ?? 'pin.weak.common';
    return {
      notice:
        why === 'pin.format' ? t(context.lang, why) : t(context.lang, 'pin.weak', { reason: t(context.lang, why) }),
    };
  }),
};
