import { z } from 'zod';
import { actorRef } from '../runtime/actor-ref.js';

/**
 * One claim actor per redemption: it serialises claims of a redemption, so the second one is
 * refused. The gateway checks the proof and the monitoring plan and passes the facts.
 */
export const claimMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('submit'),
      requestId: z.string().min(1).max(128),
      redemptionId: z.string(),
      voucherId: z.string(),
      supplierDid: z.string(),
      productId: z.string(),
      credentialType: z.string(),
      proof: z.string(),
      /** The redemption's amount, micro-units: what acceptance makes available to the supplier. */
      amount: z.number().int().positive().max(1e15).optional(),
      /** The voucher's CARBON was minted (voucher.minted): only then does a decision move it. */
      minted: z.boolean().optional(),
      /** The redemption added its CARBON to the supplier's pending tally (Redemption.tallied). */
      tallied: z.boolean().optional(),
    })
    .strict(),
  z.strictObject({
    kind: z.literal('decide'),
    outcome: z.enum(['accepted', 'rejected']),
    /** The regulator who decided (its DID, or its key id). */
    by: z.string().min(1).max(512),
    reason: z.string().trim().min(1).max(500).optional(),
  }),
]);

export type ClaimMessage = z.infer<typeof claimMessages>;

export interface ClaimState {
  id: string;
  redemptionId: string;
  voucherId: string;
  supplierDid: string;
  productId: string;
  credentialType: string;
  /** `submitted` until a regulator accepts or rejects it. */
  status: 'submitted' | 'accepted' | 'rejected';
  createdAt: string;
  /** The compact JWS the supplier signed (kept as evidence). */
  proof: string;
  requestId: string;
  amount?: number;
  minted?: boolean;
  tallied?: boolean;
  /** The regulator's decision. */
  decision?: { by: string; at: string; reason?: string };
}

/** What callers address: a claim's one message, and what it answers. */
export const claimRef = actorRef<ClaimMessage, { submit: ClaimState; decide: ClaimState }>('claim');
