import { t } from '../catalog/index.js';
import { keepResult, isOk, notice, screen, work, type FlowContext } from './kit.js';
import type { FlowDefinition } from './registry.js';

interface VoucherLine {
  id: string;
  remainingBalance: number;
  value: number;
  status: string;
}

function list(c: FlowContext): string {
  const vouchers = (c.data.vouchers ?? []) as VoucherLine[];
  if (vouchers.length === 0) return t(c.lang, 'vouchers.none');
  return vouchers
    .map((v) => t(c.lang, 'vouchers.line', { id: v.id, balance: v.remainingBalance, value: v.value, status: v.status }))
    .join('\n');
}

/** A household's vouchers and balances (long lists page with 98). */
export const vouchersFlow: FlowDefinition = {
  id: 'vouchers',
  audiences: ['household'],
  label: 'household.vouchers',
  entry: 'vouchers_load',
  states: {
    vouchers_load: work(
      () => ({ op: 'listVouchers' }),
      [
        { guard: isOk, target: 'vouchers_list', actions: keepResult },
        { target: 'menu', actions: notice('common.unavailable') },
      ],
    ),
    vouchers_list: screen('menu', list),
  },
};
