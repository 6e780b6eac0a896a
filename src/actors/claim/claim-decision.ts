import { ledgerEntry } from '../ledger-effect.js';
import { tellEffect } from '../tell-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { CARBON, pendingAccount, pendingCreditId, voucherAccount } from '../../common/movement.js';
import type { ClaimMessage, ClaimState } from './messages.js';

/**
 * A regulator accepts or rejects a submitted claim (spec 000: the regulator "approves mitigation
 * activities"). Where the voucher's CARBON was minted, the decision moves the redemption's CARBON
 * on the ledger in this commit and tells the parties, at least once (each applies it once):
 * - accepted: from the supplier's pending account to its own, where it can be converted;
 * - rejected: back to the voucher, whose household may spend it again.
 * The same decision again answers as it stands; the other one is refused.
 */
export function decideOnClaim(
  state: ClaimState | undefined,
  msg: ClaimMessage & { kind: 'decide' },
  now: Date,
): Decision<ClaimState> {
  if (!state) return { state, rejection: reject('CLAIM_NOT_FOUND', 'no claim for this redemption') };
  if (state.status === msg.outcome) return { state, reply: state };
  if (state.status !== 'submitted') {
    return { state, rejection: reject('CLAIM_ALREADY_DECIDED', `this claim was ${state.status} already`) };
  }
  const at = now.toISOString();
  const decision = { by: msg.by, at, ...(msg.reason ? { reason: msg.reason } : {}) };
  const next: ClaimState = { ...state, status: msg.outcome, decision };
  const record = { id: state.id, redemptionId: state.redemptionId, supplierDid: state.supplierDid, ...decision };
  if (!state.minted || !state.amount) {
    return { state: next, reply: next, effects: [ledgerEntry(`claim.${msg.outcome}`, record)] };
  }
  const to = msg.outcome === 'accepted' ? state.supplierDid : voucherAccount(state.voucherId);
  const movement = [
    { account: pendingAccount(state.supplierDid), asset: CARBON, amount: String(-state.amount) },
    { account: to, asset: CARBON, amount: String(state.amount) },
  ];
  const settle = tellEffect(
    { type: 'account', key: state.supplierDid },
    {
      kind: 'settle-pending',
      id: pendingCreditId(state.redemptionId),
      asset: CARBON,
      amount: String(state.amount),
      outcome: msg.outcome,
      // Its credit is in the supplier's tally, never told: nothing is waited for (pending-credit.ts).
      ...(state.tallied ? { tallied: true } : {}),
    },
  );
  const refund = tellEffect(
    { type: 'voucher', key: state.voucherId },
    { kind: 'refund', redemptionId: state.redemptionId, amount: state.amount },
  );
  return {
    state: next,
    reply: next,
    effects: [
      ledgerEntry(`claim.${msg.outcome}`, { ...record, movement, at }),
      settle,
      ...(msg.outcome === 'rejected' ? [refund] : []),
    ],
  };
}
