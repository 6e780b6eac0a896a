import { createHash } from 'node:crypto';
import { isExpired } from './logic.js';
import type { Redemption, VoucherState } from './messages.js';
import { fromMicro } from './money.js';

/**
 * The voucher representation of spec 000, with `expired` computed from the clock, and `code`,
 * the short numeric code a person types (the gateway keeps codes: voucher-codes.ts).
 */
export function voucherView(
  v: Pick<
    VoucherState,
    'id' | 'status' | 'recipientDid' | 'emissionCertificateId' | 'value' | 'remainingBalance' | 'attributes'
  >,
  now: Date,
  code?: string,
): Record<string, unknown> {
  return {
    id: v.id,
    ...(code === undefined ? {} : { code }),
    status: v.status === 'active' && isExpired(v, now) ? 'expired' : v.status,
    recipientDid: v.recipientDid,
    emissionCertificateId: v.emissionCertificateId,
    value: fromMicro(v.value),
    remainingBalance: fromMicro(v.remainingBalance),
    attributes: v.attributes,
  };
}

export function redemptionView(r: Redemption): Record<string, unknown> {
  const { requestId: _internal, ...shown } = r;
  return { ...shown, amount: fromMicro(r.amount), remainingBalance: fromMicro(r.remainingBalance) };
}

/**
 * One certificate backs one voucher, so the voucher id is derived from the certificate id: every
 * issue against a certificate reaches the same actor, which refuses the second one.
 */
export function voucherIdFor(certificateId: string): string {
  const h = createHash('sha256').update(`hearth.voucher\u0000${certificateId}`).digest('hex');
  return `vch_${h.slice(0, 26)}`;
}
