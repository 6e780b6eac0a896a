import type { TextKey } from '../catalog/index.js';

const common = new Set(['12345', '54321', '11111', '00000', '12321', '13579', '24680', '98765', '56789', '01234']);

/** Why a new PIN is refused (a catalog key), or undefined when it is acceptable. */
export function weakPin(pin: string): TextKey | undefined {
  if (!/^[0-9]{5}$/.test(pin)) return 'pin.weak.format';
  if (/^(\d)\1{4}$/.test(pin)) return 'pin.weak.repeated';
  const steps = [...pin].slice(1).map((d, i) => Number(d) - Number(pin[i]));
  if (steps.every((s) => s === 1) || steps.every((s) => s === -1)) return 'pin.weak.sequence';
  if (common.has(pin)) return 'pin.weak.common';
  return undefined;
}

export const isPinShape = (v: string): boolean => /^[0-9]{5}$/.test(v);
