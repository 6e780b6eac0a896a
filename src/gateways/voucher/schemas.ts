import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { amount, did, resourceId } from '../http/fields.js';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const issueBody = z
  .object({
    recipientDid: did,
    emissionCertificateId: resourceId,
    value: amount,
    attributes: z
      .object({ batchId: z.string().trim().min(1).max(128), issuanceDate: isoDate, expiryDate: isoDate })
      .strict(),
  })
  .strict();

/** A redemption names its voucher by id, or by the 10-digit code a person reads out (exactly one). */
export const redeemBody = z
  .object({
    voucherId: resourceId.optional(),
    voucherCode: z
      .string()
      .trim()
      .regex(/^[0-9]{1,32}$/, 'must be the digits of a voucher code')
      .optional(),
    supplierDid: did,
    amount,
    productId: resourceId,
  })
  .strict()
  .refine((b) => (b.voucherId === undefined) !== (b.voucherCode === undefined), {
    message: 'give voucherId or voucherCode, not both',
    path: ['voucherId'],
  });

export const revokeBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .strict()
  .default({});

export const voucherListQuery = z
  .object({
    recipientDid: did.optional(),
    emissionCertificateId: resourceId.optional(),
    status: z.enum(['active', 'redeemed', 'expired', 'revoked']).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

function realDate(d: string): boolean {
  const t = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === d;
}

/** 400 INVALID_DATES for 2025-02-30 and for an expiry before issuance. */
export function checkDates(a: { issuanceDate: string; expiryDate: string }): void {
  const bad = [a.issuanceDate, a.expiryDate].filter((d) => !realDate(d));
  if (bad.length) throw new AppError('INVALID_DATES', `not a calendar date: ${bad.join(', ')}`);
  if (a.expiryDate < a.issuanceDate) throw new AppError('INVALID_DATES', 'expiryDate is before issuanceDate');
}
