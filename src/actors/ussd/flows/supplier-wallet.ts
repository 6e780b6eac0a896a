import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import { isLocked, reasonText } from './change-pin.js';
import {
  accept,
  choose,
  endWith,
  isOk,
  keepResult,
  notice,
  resultOf,
  screen,
  work,
  type FlowContext,
  type FlowEvent,
} from './kit.js';
import { enterPin, isWrongPin } from './pin-entry.js';
import type { MacPin } from '../pin-mac.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

/** A scratch value as the screen shows it: the wallet's values are numbers and strings. */
const str = (c: FlowContext, name: string): string => {
  const v = c.data[name];
  return typeof v === 'number' || typeof v === 'string' ? String(v) : '';
};

/** Drops the PIN's hash from the scratch values once it has done its work (as the vouchers flow does). */
const forgetPin = assign(({ context }: Args) => {
  const { pinMac: _used, ...data } = context.data;
  return { data };
});

const wrongPinBack = (target: string) => ({
  guard: isWrongPin,
  target,
  actions: assign(({ context, event }: Args) => ({ notice: `${reasonText(context, resultOf(event))} ` })),
});

/**
 * A supplier's wallet from a basic phone (docs/ussd.md, "The supplier's wallet"): behind the PIN,
 * the CARBON it may convert, what waits on its claims, and its stablecoin; then, if it chooses,
 * a conversion of CARBON to the stablecoin through the pool, at the price quoted less 1% (swaps
 * by others may move it between the quote and the PIN), confirmed with the PIN. The conversion
 * is the same saga as over HTTP; its id comes from the session's work order, so a repeated
 * request converts once.
 */
export function supplierWalletFlow(mac: MacPin): FlowDefinition {
  return {
    id: 'wallet',
    audiences: ['supplier'],
    label: 'supplier.wallet',
    entry: 'wallet_pin',
    states: {
      wallet_pin: screen('pin', (c) => t(c.lang, 'wallet.pin'), [enterPin(mac, 'wallet_load')]),
      wallet_load: work(
        (c) => ({ op: 'wallet', pinMac: str(c, 'pinMac') }),
        [
          { guard: isOk, target: 'wallet_show', actions: [keepResult, forgetPin] },
          wrongPinBack('wallet_pin'),
          {
            guard: ({ event }: Args) => isLocked(resultOf(event)),
            target: 'done',
            actions: endWith((c, e) => reasonText(c, resultOf(e))),
          },
          { target: 'menu', actions: [notice('common.unavailable'), forgetPin] },
        ],
      ),
      wallet_show: screen(
        'menu',
        (c) =>
          `${t(c.lang, 'wallet.balance', {
            carbon: str(c, 'carbon'),
            pending: str(c, 'pending'),
            stable: str(c, 'stable'),
            symbol: str(c, 'symbol'),
          })}\n1 ${t(c.lang, 'wallet.convert')}`,
        [choose('1', 'wallet_amount')],
      ),
      wallet_amount: screen('number', (c) => t(c.lang, 'wallet.amount', { carbon: str(c, 'carbon') }), [
        accept((v) => /^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(v) && Number(v) > 0, 'wallet_quote', 'amount'),
      ]),
      wallet_quote: work(
        (c) => ({ op: 'quoteConversion', amount: Number(c.data.amount) }),
        [
          { guard: isOk, target: 'wallet_confirm', actions: keepResult },
          {
            target: 'done',
            actions: endWith((c, e) => t(c.lang, 'wallet.failed', { reason: reasonText(c, resultOf(e)) })),
          },
        ],
      ),
      wallet_confirm: screen(
        'pin',
        (c) =>
          t(c.lang, 'wallet.confirm', {
            amount: str(c, 'amount'),
            min: str(c, 'minReceive'),
            symbol: str(c, 'symbol'),
          }),
        [enterPin(mac, 'wallet_submit')],
      ),
      wallet_submit: work(
        (c) => ({
          op: 'convert',
          pinMac: str(c, 'pinMac'),
          amount: Number(c.data.amount),
          minReceive: Number(c.data.minReceive),
        }),
        [
          {
            guard: isOk,
            target: 'done',
            actions: endWith((c, e) => {
              const r = resultOf(e);
              const received = r?.ok ? r.data?.received : undefined;
              return typeof received !== 'number'
                ? t(c.lang, 'wallet.processing')
                : t(c.lang, 'wallet.done', {
                    amount: str(c, 'amount'),
                    received: String(received),
                    symbol: str(c, 'symbol'),
                  });
            }),
          },
          wrongPinBack('wallet_confirm'),
          {
            target: 'done',
            actions: endWith((c, e) =>
              isLocked(resultOf(e))
                ? reasonText(c, resultOf(e))
                : t(c.lang, 'wallet.failed', { reason: reasonText(c, resultOf(e)) }),
            ),
          },
        ],
      ),
    },
  };
}
