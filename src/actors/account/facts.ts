/**
 * The facts an account keeps beside its snapshot (runtime facts: src/actors/runtime/types.ts),
 * by id. Their ids are part of the stored data: renaming one is a migration.
 */

/** A step the account applied (a credit, capture, release or deposit): `{ kind }`. */
export const stepFact = (stepId: string): string => `step:${stepId}`;

/**
 * A redemption's credit waiting on its claim's decision, then the decision, and the tally of the
 * pending amount: written by the redemption's commit on the voucher, or, for redemptions made
 * before tallies, by the account when the credit was told to it (src/actors/pending-credit.ts).
 */
export { pendingFact, pendingTallyAsset, type PendingCredit } from '../pending-credit.js';

/** An ITMO claim (itmo.ts). */
export const itmoClaimFact = (id: string): string => `itmo-claim:${id}`;

/** An ITMO certificate (itmo.ts). */
export const itmoCertificateFact = (id: string): string => `itmo-cert:${id}`;
