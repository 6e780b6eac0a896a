import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isExpired } from './logic.js';
import type { Redemption, VoucherState } from './messages.js';
import { fromMicro } from './money.js';

/** What {@link voucherView} answers: the OpenAPI document's voucher, and its tests' check. */
export const voucherViewSchema = z.strictObject({
  id: z.string(),
  code: z
    .string()
    .regex(/^[0-9]{10}$/)
    .optional(),
  status: z.enum(['active', 'redeemed', 'revoked', 'expired']),
  recipientDid: z.string(),
  emissionCertificateId: z.string(),
  value: z.number(),
  remainingBalance: z.number(),
  attributes: z.strictObject({ batchId: z.string(), issuanceDate: z.iso.date(), expiryDate: z.iso.date() }),
});

/** What {@link redemptionView} answers. */
export const redemptionViewSchema = z.strictObject({
  id: z.string(),
  voucherId: z.string(),
  supplierDid: z.string(),
  productId: z.string(),
  amount: z.number(),
  remainingBalance: z.number(),
  createdAt: z.iso.datetime(),
});

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
): z.output<typeof voucherViewSchema> {
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

export function redemptionView(r: Redemption): z.output<typeof redemptionViewSchema> {
  const { requestId: _internal, tallied: _tallied, ...shown } = r;
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
