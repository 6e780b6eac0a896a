import { z } from 'zod';
import type { ClaimState } from './messages.js';

/** What {@link claimView} answers: the OpenAPI document's claim. */
export const claimViewSchema = z.strictObject({
  id: z.string(),
  redemptionId: z.string(),
  voucherId: z.string(),
  supplierDid: z.string(),
  productId: z.string(),
  credentialType: z.string(),
  status: z.enum(['submitted', 'accepted', 'rejected']),
  createdAt: z.iso.datetime(),
  /** The compact JWS the supplier signed (kept as evidence). */
  proof: z.string(),
  /** A regulator's decision: who, when and (a rejection) why. */
  decision: z.strictObject({ by: z.string(), at: z.iso.datetime(), reason: z.string().optional() }).optional(),
}) satisfies z.ZodType<Omit<ClaimState, 'requestId' | 'amount' | 'minted' | 'tallied'>>;

/** What a client sees of a claim (the request id and the facts its decision moves stay inside). */
export function claimView(c: ClaimState): Omit<ClaimState, 'requestId' | 'amount' | 'minted' | 'tallied'> {
  const { requestId: _r, amount: _a, minted: _m, tallied: _t, ...shown } = c;
  return shown;
}
