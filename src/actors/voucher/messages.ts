import { z } from 'zod';
import { actorRef } from '../runtime/actor-ref.js';

const micro = z.number().int().positive().max(1e15);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/**
 * What the voucher actor accepts. The gateway looks up the registries and passes the facts the
 * rules need, so `decide` stays pure; rules that depend on the voucher itself run in the actor,
 * serialised per voucher.
 */
export const voucherMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('issue'),
      requestId: z.string().min(1).max(128),
      recipientDid: z.string(),
      emissionCertificateId: z.string(),
      value: micro,
      attributes: z.object({ batchId: z.string(), issuanceDate: isoDate, expiryDate: isoDate }).strict(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('redeem'),
      requestId: z.string().min(1).max(128),
      supplierDid: z.string(),
      productId: z.string(),
      amount: micro,
    })
    .strict(),
  z.object({ kind: z.literal('revoke'), reason: z.string().max(500).optional() }).strict(),
  z.object({ kind: z.literal('get') }).strict(),
]);

export type VoucherMessage = z.infer<typeof voucherMessages>;

export interface Redemption {
  id: string;
  /** The request this redemption answered (not shown to clients). */
  requestId: string;
  voucherId: string;
  supplierDid: string;
  productId: string;
  /** Micro-units. */
  amount: number;
  /** Micro-units left after this redemption. */
  remainingBalance: number;
  createdAt: string;
}

export interface VoucherState {
  id: string;
  /** `active` until the balance reaches 0 (`redeemed`) or it is revoked; `expired` is computed. */
  status: 'active' | 'redeemed' | 'revoked';
  recipientDid: string;
  emissionCertificateId: string;
  /** Micro-units. */
  value: number;
  /** Micro-units. */
  remainingBalance: number;
  attributes: { batchId: string; issuanceDate: string; expiryDate: string };
  createdAt: string;
  /** How many redemptions there were (they are stored as records beside the snapshot). */
  redemptionCount: number;
  /**
   * The latest redemptions with the request id each answered (at most {@link RECENT_REDEMPTIONS}):
   * a client retrying after a timeout (same Idempotency-Key) gets the first answer instead of a
   * second redemption. Bounded, so a hot voucher's snapshot stays small.
   */
  recent: Redemption[];
  /** The request that issued the voucher, for the same reason. */
  issueRequestId: string;
}

/** Redemptions remembered for retries: covers a retry made within that many later redemptions. */
export const RECENT_REDEMPTIONS = 256;

/** What callers address: each kind of voucher message, and what it answers. */
export const voucherRef = actorRef<
  VoucherMessage,
  {
    issue: Omit<VoucherState, 'recent' | 'redemptionCount' | 'issueRequestId'>;
    redeem: Redemption;
    revoke: VoucherState;
    get: VoucherState;
  }
>('voucher');
