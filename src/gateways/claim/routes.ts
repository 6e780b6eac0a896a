import { z } from 'zod';
import { claimView, claimViewSchema } from '../../actors/claim/representation.js';
import type { Asker } from '../../actors/runtime/asker.js';
import { AppError } from '../../errors/index.js';
import type { ClaimReads } from './claim-reads.js';
import type { Certificate, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherReads } from '../voucher/service.js';
import { verifyCompactJws } from '../auth/jws.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import { decisionBody } from '../http/decision-body.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { did, resourceId } from '../http/fields.js';
import { requestIdOf } from '../http/operation-id.js';
import { askErrors } from '../http/ask-errors.js';
import { pageOf } from '../http/pagination.js';
import { claimRef } from '../../actors/claim/index.js';

const claimBody = z
  .object({
    redemptionId: z.string().min(1).max(128),
    verifiableCredential: z
      .object({ type: z.string().trim().min(1).max(200), proof: z.string().min(1).max(20_000) })
      .strict(),
  })
  .strict();

const claimQuery = z
  .object({
    supplierDid: did.optional(),
    voucherId: resourceId.optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export interface ClaimDeps {
  client: Asker;
  vouchers: VoucherReads;
  claims: ClaimReads;
  suppliers: Registry<Supplier>;
  certificates: Registry<Certificate>;
  clock: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `POST /v1/claims` (supplier) with the three claim rules; reads of claims. */
export function claimRoutes(g: Guards, d: ClaimDeps): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/v1/claims',
      doc: {
        operationId: 'submitClaim',
        summary: 'Submit a delivery claim for a redemption (supplier, signed)',
        tag: 'claims',
        body: claimBody,
        responses: { 201: 'The claim record' },
        responseBody: claimViewSchema,
        errors: [
          'REDEMPTION_NOT_FOUND',
          'CLAIM_NOT_YOURS',
          'CLAIM_PROOF_INVALID',
          'CLAIM_NOT_IN_PLAN',
          'CLAIM_WINDOW_CLOSED',
          'CLAIM_ALREADY_SUBMITTED',
          ...askErrors,
        ],
      },
      handler: guarded(g, ['supplier'], async (ctx, who) => {
        const body = await jsonBody(ctx, claimBody);
        const found = await d.vouchers.findRedemption(body.redemptionId);
        if (!found) throw new AppError('REDEMPTION_NOT_FOUND', `no redemption ${body.redemptionId}`);
        const { voucher, redemption } = found;
        if (redemption.supplierDid !== who.did) {
          throw new AppError('CLAIM_NOT_YOURS', 'only the supplier that made the redemption may claim it');
        }
        // Rule 1: verifiable delivery proof, signed by the supplier's DID key over this redemption.
        const supplier = await d.suppliers.get(redemption.supplierDid);
        const jws = supplier ? verifyCompactJws(body.verifiableCredential.proof, supplier.publicKey) : undefined;
        if (!jws || jws.payload.redemptionId !== redemption.id) {
          throw new AppError(
            'CLAIM_PROOF_INVALID',
            'proof must be a compact JWS (alg EdDSA) signed with the supplier key, whose payload has this redemptionId',
          );
        }
        // Rule 2: the monitoring plan of the voucher's certificate.
        const plan = (await d.certificates.get(voucher.emissionCertificateId))?.monitoringPlan;
        const type = body.verifiableCredential.type;
        if (!plan?.acceptedCredentialTypes.includes(type) || !plan.approvedProducts.includes(redemption.productId)) {
          throw new AppError('CLAIM_NOT_IN_PLAN', 'the credential type or the product is not in the monitoring plan', {
            credentialType: type,
            productId: redemption.productId,
          });
        }
        // Rule 3: within the plan's window after the redemption.
        const deadline = Date.parse(redemption.createdAt) + plan.claimWindowDays * DAY_MS;
        if (d.clock().getTime() > deadline) {
          throw new AppError(
            'CLAIM_WINDOW_CLOSED',
            `claims for this redemption closed on ${new Date(deadline).toISOString()}`,
          );
        }
        const claim = await d.client.ask(claimRef, redemption.id, {
          kind: 'submit',
          requestId: requestIdOf(ctx, who),
          redemptionId: redemption.id,
          voucherId: voucher.id,
          supplierDid: redemption.supplierDid,
          productId: redemption.productId,
          credentialType: type,
          proof: body.verifiableCredential.proof,
          amount: redemption.amount,
          minted: voucher.minted === true,
          tallied: redemption.tallied === true,
        });
        return json(201, claimView(claim));
      }),
    },
    decideRoute(g, d, 'accepted'),
    decideRoute(g, d, 'rejected'),
    {
      method: 'GET',
      path: '/v1/claims',
      doc: {
        operationId: 'listClaims',
        summary: 'List claims (a supplier: its own)',
        tag: 'claims',
        query: claimQuery,
        responses: { 200: 'A page of claims, newest first' },
        responseBody: pageOf(claimViewSchema),
        errors: ['VALIDATION_FAILED'],
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'supplier'], async (ctx, who) => {
        const q = parseWith(claimQuery, queryObject(ctx.query), 'query');
        // A supplier lists its own claims only.
        const supplierDid = who.role === 'supplier' ? who.did : q.supplierDid;
        const { items, total } = await d.claims.list({ supplierDid, voucherId: q.voucherId }, q.limit, q.offset);
        return json(200, { items: items.map(claimView), total, limit: q.limit, offset: q.offset });
      }),
    },
    {
      method: 'GET',
      path: '/v1/claims/:id',
      doc: {
        operationId: 'getClaim',
        summary: 'One claim',
        tag: 'claims',
        responses: { 200: 'The claim record' },
        responseBody: claimViewSchema,
        errors: ['CLAIM_NOT_FOUND'],
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'supplier'], async (ctx, who) => {
        const claim = await d.claims.get(ctx.params.id ?? '');
        if (!claim || (who.role === 'supplier' && claim.supplierDid !== who.did)) {
          throw new AppError('CLAIM_NOT_FOUND', `no claim ${ctx.params.id}`);
        }
        return json(200, claimView(claim));
      }),
    },
  ];
}

/**
 * `POST /v1/claims/:id/accept` and `/reject` (regulator): the decision that makes a redemption's
 * CARBON available to its supplier, or gives it back to the voucher (claim-decision.ts).
 */
function decideRoute(g: Guards, d: ClaimDeps, outcome: 'accepted' | 'rejected'): RouteSpec {
  const accept = outcome === 'accepted';
  const body = decisionBody(accept);
  return {
    method: 'POST',
    path: `/v1/claims/:id/${accept ? 'accept' : 'reject'}`,
    doc: {
      operationId: accept ? 'acceptClaim' : 'rejectClaim',
      summary: accept
        ? "Accept a claim: its redemption's CARBON becomes the supplier's to convert (regulator)"
        : "Reject a claim, with the reason: its redemption's CARBON goes back to the voucher (regulator)",
      tag: 'claims',
      body,
      responses: { 200: 'The claim with its decision' },
      responseBody: claimViewSchema,
      errors: ['CLAIM_NOT_FOUND', 'CLAIM_ALREADY_DECIDED', ...askErrors],
    },
    handler: guarded(g, ['regulator'], async (ctx, who) => {
      const { reason } = await jsonBody(ctx, body);
      const claim = await d.claims.get(ctx.params.id ?? '');
      if (!claim) throw new AppError('CLAIM_NOT_FOUND', `no claim ${ctx.params.id}`);
      const decided = await d.client.ask(claimRef, claim.redemptionId, {
        kind: 'decide',
        outcome,
        by: who.did ?? who.keyId,
        ...(reason ? { reason } : {}),
      });
      return json(200, claimView(decided));
    }),
  };
}
