import type { TallyWrite } from './runtime/types.js';

/*
 * A redemption's CARBON waiting on its claim's decision, as its supplier's account keeps it: the
 * third effect an actor may write for another (after a tell and a ledger entry). The voucher's
 * commit adds it to the account's pending tally, so a redemption is one actor step; the claim's
 * decision, told to the account, settles it there (the redemption record and its claim say it
 * was tallied). The ids below are part of the stored data: renaming one is a migration.
 */

/**
 * A credit told to an account (redemptions before migration 027) and then its decision, or the
 * decision alone on a tallied credit: a fact of the account, by the credit's step id.
 */
export interface PendingCredit {
  asset: string;
  amount: string;
  /** `settled`: decided before facts existed (migration 022), its outcome not kept. */
  status: 'pending' | 'accepted' | 'rejected' | 'settled';
}

/** The account's fact of a pending credit, by its step id (common/movement.ts, pendingCreditId). */
export const pendingFact = (stepId: string): string => `pending:${stepId}`;

/** The account's tally of an asset's pending amount. */
const pendingTally = (asset: string): string => `pending:${asset}`;

/** The asset a pending tally counts, or undefined for another tally. */
export const pendingTallyAsset = (name: string): string | undefined =>
  name.startsWith('pending:') ? name.slice('pending:'.length) : undefined;

/** What a redemption adds to its supplier's account, in its own commit. */
export function pendingCredit(account: string, asset: string, micro: string): TallyWrite {
  return { type: 'account', key: account, name: pendingTally(asset), by: micro };
}
