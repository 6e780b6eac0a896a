import { createHash } from 'node:crypto';
import { ledgerEntry } from '../ledger-effect.js';
import { z } from 'zod';
import { reject, type ActorDefinition, type Decision } from '../runtime/types.js';
import { actorRef } from '../runtime/actor-ref.js';
import { decideOnClaim } from './claim-decision.js';
import { claimMessages, type ClaimMessage, type ClaimState } from './messages.js';

function decideClaim(
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
  const { proof, requestId: _r, amount: _a, minted: _m, ...record } = claim;
  // The proof stays off the ledger (it is the supplier's document), its SHA-256 goes on: the
  // ledger then shows which delivery proof claim rule 1 accepted, and anyone holding it can check.
  const proofDigest = createHash('sha256').update(proof).digest('hex');
  return {
    state: claim,
    reply: claim,
    effects: [ledgerEntry('claim.submitted', { ...record, proofDigest, at: claim.createdAt })],
  };
}

export const claimActor: ActorDefinition<ClaimState, ClaimMessage> = {
  type: 'claim',
  messages: claimMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideClaim,
  view: {
    table: 'claim_views',
    columns: ['claim_id', 'supplier_did', 'voucher_id', 'created_at', 'doc'],
    row: (c) => ({
      claim_id: c.id,
      supplier_did: c.supplierDid,
      voucher_id: c.voucherId,
      created_at: c.createdAt,
      doc: c,
    }),
  },
};

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
}) satisfies z.ZodType<Omit<ClaimState, 'requestId' | 'amount' | 'minted'>>;

/** What a client sees of a claim (the request id and the facts its decision moves stay inside). */
export function claimView(c: ClaimState): Omit<ClaimState, 'requestId' | 'amount' | 'minted'> {
  const { requestId: _r, amount: _a, minted: _m, ...shown } = c;
  return shown;
}

/** What callers address: a claim's one message, and what it answers. */
export const claimRef = actorRef<ClaimMessage, { submit: ClaimState; decide: ClaimState }>('claim');
