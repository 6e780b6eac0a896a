/**
 * The facts an account keeps beside its snapshot (runtime facts: src/actors/runtime/types.ts),
 * by id. Their ids are part of the stored data: renaming one is a migration.
 */

/** A step the account applied (a credit, capture, release or deposit): `{ kind }`. */
export const stepFact = (stepId: string): string => `step:${stepId}`;

/** A redemption's credit waiting on its claim's decision, then the decision: a {@link PendingCredit}. */
export const pendingFact = (stepId: string): string => `pending:${stepId}`;

export interface PendingCredit {
  asset: string;
  amount: string;
  /** `settled`: decided before facts existed (migration 022), its outcome not kept. */
  status: 'pending' | 'accepted' | 'rejected' | 'settled';
}

/** An ITMO claim (itmo.ts). */
export const itmoClaimFact = (id: string): string => `itmo-claim:${id}`;

/** An ITMO certificate (itmo.ts). */
export const itmoCertificateFact = (id: string): string => `itmo-cert:${id}`;
