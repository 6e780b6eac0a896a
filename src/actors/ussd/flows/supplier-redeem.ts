import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import { isLocked, reasonText } from './change-pin.js';
import {
  accept,
  endWith,
  isOk,
  keepResult,
  notice,
  resultOf,
  screen,
  work,
  type FlowContext,
  valueOf,
  type FlowEvent,
} from './kit.js';
import { isVoucherCode } from '../../../common/voucher-code.js';
import { enterPin, isWrongPin } from './pin-entry.js';
import type { MacPin } from '../pin-mac.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

const failedWith = (e: FlowEvent, reason: string): boolean => {
  const r = resultOf(e);
  return r !== undefined && !r.ok && r.reason === reason;
};
type Product = { id: string; name: string };

const products = (c: FlowContext): Product[] => (c.data.products ?? []) as Product[];
const chosen = (c: FlowContext): Product | undefined => products(c)[Number(c.data.productChoice) - 1];

/**
 * A supplier redeems a voucher: its 10-digit code (or its id), a product from the approved list,
 * the amount, then the PIN to confirm. A mistyped code (its check digit) is said at once, and an
 * unknown one as soon as the gateway has looked it up, before anything else is asked: all a
 * supplier learns before the PIN is that a code names a voucher and which products it may pay
 * for, never its household or its balance (docs/ussd.md, "Voucher codes"). The redemption goes through the voucher actor and its rules (the gateway asks
 * it); the phone shows the remaining balance or the rule that refused it.
 */
export function supplierRedeemFlow(mac: MacPin): FlowDefinition {
  return {
    id: 'redeem',
    audiences: ['supplier'],
    label: 'supplier.redeem',
    entry: 'redeem_voucher',
    states: {
      redeem_voucher: screen('text', (c) => t(c.lang, 'redeem.voucher'), [
        // A code whose check digit is wrong is a slip of the finger: said at once, nothing asked.
        {
          guard: ({ event }: Args) => /^[0-9]+$/.test(valueOf(event)) && !isVoucherCode(valueOf(event)),
          actions: notice('redeem.mistyped'),
        },
        accept((v) => isVoucherCode(v) || /^[A-Za-z][A-Za-z0-9_-]{2,63}$/.test(v), 'redeem_products', 'voucherRef'),
      ]),
      redeem_products: work(
        (c) => ({ op: 'findVoucher', ref: String(c.data.voucherRef) }),
        [
          { guard: isOk, target: 'redeem_product', actions: keepResult },
          {
            guard: ({ event }: Args) => failedWith(event, 'unknown voucher'),
            target: 'redeem_voucher',
            actions: notice('redeem.unknown'),
          },
          {
            guard: ({ event }: Args) => failedWith(event, 'too many unknown codes'),
            target: 'done',
            actions: endWith((c) => t(c.lang, 'redeem.blocked')),
          },
          { target: 'menu', actions: notice('common.unavailable') },
        ],
      ),
      redeem_product: screen(
        'menu',
        (c) =>
          products(c).length === 0
            ? t(c.lang, 'redeem.noProducts')
            : `${t(c.lang, 'redeem.product')}\n${products(c)
                .map((p, i) => `${i + 1} ${p.name}`)
                .join('\n')}`,
        [
          accept(
            (v, c) => /^[1-9][0-9]?$/.test(v) && Number(v) <= products(c).length,
            'redeem_amount',
            'productChoice',
          ),
        ],
      ),
      redeem_amount: screen('number', (c) => t(c.lang, 'redeem.amount'), [
        accept((v) => /^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(v) && Number(v) > 0, 'redeem_confirm', 'amount'),
      ]),
      redeem_confirm: screen(
        'pin',
        (c) =>
          t(c.lang, 'redeem.confirm', {
            amount: String(c.data.amount),
            voucher: String(c.data.voucherRef),
            product: chosen(c)?.name ?? '',
          }),
        [enterPin(mac, 'redeem_submit')],
      ),
      redeem_submit: work(
        (c) => ({
          op: 'redeem',
          pinMac: String(c.data.pinMac),
          voucherId: String(c.data.voucherId),
          productId: chosen(c)?.id ?? '',
          amount: Number(c.data.amount),
        }),
        [
          {
            guard: isOk,
            target: 'done',
            actions: endWith((c, e) => {
              const r = resultOf(e);
              const balance = r?.ok ? JSON.stringify(r.data?.remainingBalance ?? '') : '';
              return t(c.lang, 'redeem.done', { amount: String(c.data.amount), balance });
            }),
          },
          {
            guard: isWrongPin,
            target: 'redeem_confirm',
            actions: assign(({ context, event }: Args) => ({ notice: `${reasonText(context, resultOf(event))} ` })),
          },
          {
            target: 'done',
            actions: endWith((c, e) =>
              isLocked(resultOf(e))
                ? reasonText(c, resultOf(e))
                : t(c.lang, 'redeem.failed', { reason: reasonText(c, resultOf(e)) }),
            ),
          },
        ],
      ),
    },
  };
}
