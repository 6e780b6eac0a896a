import { createHash } from 'node:crypto';
import { ledgerEntry } from '../ledger-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { decideOnClaim } from './claim-decision.js';
import type { ClaimMessage, ClaimState } from './messages.js';

/**
 * A claim's decisions: its submission, once per redemption (the same request asked again answers
 * the claim it made), then a regulator's decision (claim-decision.ts).
 */
export function decideClaim(
  state: ClaimState | undefined,
  msg: ClaimMessage,
  ctx: { now: Date; id(n?: number): string },
): Decision<ClaimState> {
  if (msg.kind === 'decide') return decideOnClaim(state, msg, ctx.now);
  if (state) {
    if (state.requestId === msg.requestId) return { state, reply: state };
    return {
      state,
      rejection: reject('CLAIM_ALREADY_SUBMITTED', `redemption ${msg.redemptionId} already has claim ${state.id}`),
    };
  }
  const { kind: _k, ...fields } = msg;
  const claim: ClaimState = { id: ctx.id(0), ...fields, status: 'submitted', createdAt: ctx.now.toISOString() };
  const { proof, requestId: _r, amount: _a, minted: _m, tallied: _t, ...record } = claim;
  // The proof stays off the ledger (it is the supplier's document), its SHA-256 goes on: the
  // ledger then shows which delivery proof claim rule 1 accepted, and anyone holding it can check.
  const proofDigest = createHash('sha256').update(proof).digest('hex');
  return {
    state: claim,
    reply: claim,
    effects: [ledgerEntry('claim.submitted', { ...record, proofDigest, at: claim.createdAt })],
  };
}
