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
      /**
       * Issued to an implementer's own account (its treasury: what it seeds a pool with), not to a
       * household: the CARBON is minted straight into the account, and the voucher is spent.
       */
      treasury: z.literal(true).optional(),
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
  /**
   * A rejected claim gives its redemption's CARBON back to the voucher (told by the claim, at
   * least once: applied once per redemption).
   */
  z.object({ kind: z.literal('refund'), redemptionId: z.string().min(1).max(128), amount: micro }).strict(),
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
  /**
   * Its CARBON was added to the supplier's pending tally by its own commit (migration 027): a
   * claim's decision settles it on the account without a credit told first (not shown to clients).
   */
  tallied?: true;
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
   * The request that issued the voucher: a client retrying an issue after a timeout gets the
   * first answer. (A redemption's request and a refund are remembered as facts beside the
   * snapshot, however many there were: voucher-facts in logic.ts.)
   */
  issueRequestId: string;
  /**
   * Its CARBON was minted on the ledger at issuance (every voucher issued since the token
   * conversion flow): its redemptions then move that CARBON to the supplier, pending its claim.
   * A voucher issued before has no movements, and its redemptions credit nothing.
   */
  minted?: true;
  /** Issued to an implementer's treasury (see the issue message): spent at issuance. */
  treasury?: true;
}

/** What callers address: each kind of voucher message, and what it answers. */
export const voucherRef = actorRef<
  VoucherMessage,
  {
    issue: Omit<VoucherState, 'redemptionCount' | 'issueRequestId' | 'minted' | 'treasury'>;
    redeem: Redemption;
    revoke: VoucherState;
    refund: VoucherState;
    get: VoucherState;
  }
>('voucher');
