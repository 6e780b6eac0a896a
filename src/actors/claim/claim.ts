import { createHash } from 'node:crypto';
import { ledgerEntry } from '../ledger-effect.js';
import { z } from 'zod';
import { reject, type ActorDefinition, type Decision } from '../runtime/types.js';
import { actorRef } from '../runtime/actor-ref.js';

/**
 * One claim actor per redemption: it serialises claims of a redemption, so the second one is
 * refused. The gateway checks the proof and the monitoring plan and passes the facts.
 */
const claimMessages = z.discriminatedUnion('kind', [
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
    })
    .strict(),
]);

export type ClaimMessage = z.infer<typeof claimMessages>;

export interface ClaimState {
  id: string;
  redemptionId: string;
  voucherId: string;
  supplierDid: string;
  productId: string;
  credentialType: string;
  status: 'submitted';
  createdAt: string;
  /** The compact JWS the supplier signed (kept as evidence). */
  proof: string;
  requestId: string;
}

function decideClaim(
  state: ClaimState | undefined,
  msg: ClaimMessage,
  ctx: { now: Date; id(n?: number): string },
): Decision<ClaimState> {
  if (state) {
    if (state.requestId === msg.requestId) return { state, reply: state };
    return {
      state,
      rejection: reject('CLAIM_ALREADY_SUBMITTED', `redemption ${msg.redemptionId} already has claim ${state.id}`),
    };
  }
  const { kind: _k, ...fields } = msg;
  const claim: ClaimState = { id: ctx.id(0), ...fields, status: 'submitted', createdAt: ctx.now.toISOString() };
  const { proof, requestId: _r, ...record } = claim;
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
  status: z.literal('submitted'),
  createdAt: z.iso.datetime(),
  /** The compact JWS the supplier signed (kept as evidence). */
  proof: z.string(),
}) satisfies z.ZodType<Omit<ClaimState, 'requestId'>>;

/** What a client sees of a claim (the request id stays inside). */
export function claimView(c: ClaimState): Omit<ClaimState, 'requestId'> {
  const { requestId: _r, ...shown } = c;
  return shown;
}

/** What callers address: a claim's one message, and what it answers. */
export const claimRef = actorRef<ClaimMessage, { submit: ClaimState }>('claim');
