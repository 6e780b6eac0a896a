import type { FactWrite, TallyWrite } from './runtime/types.js';

/**
 * A redemption's CARBON waiting on its claim's decision, as its supplier's account keeps it: the
 * third effect an actor may write for another (after a tell and a ledger entry). The voucher's
 * commit writes the credit as a fact of the account and adds it to the account's pending tally,
 * so a redemption is one actor step; the account reads the fact when the claim's decision is
 * told to it. Its ids are part of the stored data: renaming one is a migration.
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

/** The fact and the tally a redemption writes on its supplier's account, in its own commit. */
export function pendingCredit(
  account: string,
  stepId: string,
  asset: string,
  micro: string,
): { fact: FactWrite; tally: TallyWrite } {
  const body: PendingCredit = { asset, amount: micro, status: 'pending' };
  return {
    fact: { id: pendingFact(stepId), body, of: { type: 'account', key: account } },
    tally: { type: 'account', key: account, name: pendingTally(asset), by: micro },
  };
}
