import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import { isLocked, reasonText } from './change-pin.js';
import { endWith, isOk, keepResult, notice, resultOf, screen, work, type FlowContext, type FlowEvent } from './kit.js';
import { enterPin, isWrongPin } from './pin-entry.js';
import type { MacPin } from '../pin-mac.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

interface VoucherLine {
  id: string;
  /** The 10-digit code the household reads out to a supplier. */
  code?: string;
  remainingBalance: number;
  value: number;
  status: string;
}

function list(c: FlowContext): string {
  const vouchers = (c.data.vouchers ?? []) as VoucherLine[];
  if (vouchers.length === 0) return t(c.lang, 'vouchers.none');
  return vouchers
    .map((v) =>
      t(c.lang, 'vouchers.line', {
        code: v.code ?? v.id,
        balance: v.remainingBalance,
        value: v.value,
        status: v.status,
      }),
    )
    .join('\n');
}

/**
 * A household's vouchers and balances (long lists page with 98), behind the PIN: a basic phone
 * is often shared within a family or lent to a neighbour, and a balance is money, so it is
 * shown the way a mobile-money balance is, to whoever knows the PIN. A wrong PIN counts towards
 * the lockout like any other.
 */
export function vouchersFlow(mac: MacPin): FlowDefinition {
  return {
    id: 'vouchers',
    audiences: ['household'],
    label: 'household.vouchers',
    entry: 'vouchers_pin',
    states: {
      vouchers_pin: screen('pin', (c) => t(c.lang, 'vouchers.pin'), [enterPin(mac, 'vouchers_load')]),
      vouchers_load: work(
        (c) => ({ op: 'listVouchers', pinMac: String(c.data.pinMac) }),
        [
          // The PIN's hash has done its work: it does not stay in the session's snapshot.
          { guard: isOk, target: 'vouchers_list', actions: [keepResult, forgetPin] },
          {
            guard: isWrongPin,
            target: 'vouchers_pin',
            actions: assign(({ context, event }: Args) => ({
              notice: `${reasonText(context, resultOf(event))} `,
              data: withoutPin(context.data),
            })),
          },
          {
            guard: ({ event }: Args) => isLocked(resultOf(event)),
            target: 'done',
            actions: endWith((c, e) => reasonText(c, resultOf(e))),
          },
          { target: 'menu', actions: [notice('common.unavailable'), forgetPin] },
        ],
      ),
      // The balance is the answer: the session ends with it (on its last page, when it pages).
      vouchers_list: screen('final', list),
    },
  };
}

function withoutPin(data: Record<string, unknown>): Record<string, unknown> {
  const { pinMac: _used, ...rest } = data;
  return rest;
}

const forgetPin = assign(({ context }: Args) => ({ data: withoutPin(context.data) }));
