import type { z } from 'zod';
import type { Asker } from '../../actors/runtime/asker.js';
import { accountRef } from '../../actors/account/index.js';
import type { ItmoCertificate, ItmoClaim } from '../../actors/account/itmo.js';
import { AppError } from '../../errors/index.js';
import type { LedgerReads } from '../../ledger/ledger-reads.js';
import { guarded, type Guards } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody } from '../http/context.js';
import { json } from '../http/reply.js';
import { decisionBody } from '../http/decision-body.js';
import type { RouteSpec } from '../http/router.js';
import { accountOf, inDecimals, stepIdOf } from './caller.js';
import type { ConversionReads } from './conversion-reads.js';
import { decimal, micro } from './conversion-view.js';
import { certificateBody, itmoCertificateSchema, itmoClaimBody, itmoClaimSchema } from './itmo-schemas.js';

export interface ItmoDeps {
  client: Asker;
  reads: ConversionReads;
  ledger: LedgerReads;
}

const certificateView = (did: string, c: ItmoCertificate): z.infer<typeof itmoCertificateSchema> => ({
  ...c,
  accountDid: did,
  units: decimal(c.units),
});

/** Its holder, an admin or a regulator may read an ITMO claim or certificate. */
const mayRead = (who: Principal, holder: string): boolean =>
  who.role === 'admin' || who.role === 'regulator' || who.did === holder;

/** Steps 4 and 5 of the token conversion flow: ITMO claims, and certificates a regulator approves. */
export function itmoRoutes(g: Guards, d: ItmoDeps): RouteSpec[] {
  const claimView = async (did: string, c: ItmoClaim): Promise<z.infer<typeof itmoClaimSchema>> => ({
    ...c,
    accountDid: did,
    units: decimal(c.units),
    transferProof: (await d.ledger.entryByRef(c.id)) ?? null,
  });
  // Someone who may not read the holder's account is told there is no such claim or certificate.
  const readable = <T extends { did: string }>(who: Principal, found: T | undefined): T | undefined =>
    found && mayRead(who, found.did) ? found : undefined;
  return [
    {
      method: 'POST',
      path: '/v1/itmo-claims',
      doc: {
        operationId: 'claimItmo',
        summary: 'Burn CARBON into an ITMO claim with its transfer proof (implementer with a DID; step 4)',
        tag: 'conversions',
        body: itmoClaimBody,
        idempotencyKey: 'required',
        responses: { 201: 'The claim; its transferProof is null until its ledger entry is in a block' },
        responseBody: itmoClaimSchema,
        errors: ['INSUFFICIENT_BALANCE', 'FORBIDDEN', ...askErrors],
      },
      handler: guarded(g, ['implementer'], async (ctx, who) => {
        const did = accountOf(who);
        const id = stepIdOf('itc', did, ctx);
        const { amount } = await jsonBody(ctx, itmoClaimBody);
        const claim = await d.client
          .ask(accountRef, did, { kind: 'claim-itmo', id, amount: micro(amount) })
          .catch(inDecimals);
        return json(201, await claimView(did, claim));
      }),
    },
    {
      method: 'GET',
      path: '/v1/itmo-claims/:id',
      doc: {
        operationId: 'getItmoClaim',
        summary: 'An ITMO claim with its transfer proof (its holder, an admin or a regulator)',
        tag: 'conversions',
        responses: { 200: 'The claim' },
        responseBody: itmoClaimSchema,
        errors: ['ITMO_CLAIM_NOT_FOUND'],
      },
      handler: guarded(g, ['implementer', 'admin', 'regulator'], async (ctx, who) => {
        const id = ctx.params.id ?? '';
        const found = readable(who, await d.reads.itmoClaim(id));
        if (!found) throw new AppError('ITMO_CLAIM_NOT_FOUND', `no ITMO claim ${id}`);
        return json(200, await claimView(found.did, found.claim));
      }),
    },
    {
      method: 'POST',
      path: '/v1/itmo-certificates',
      doc: {
        operationId: 'requestItmoCertificate',
        summary: 'Turn ITMO claims into a certificate of the national registry, for a regulator to approve (step 5)',
        tag: 'conversions',
        body: certificateBody,
        idempotencyKey: 'required',
        responses: { 201: 'The certificate, requested: its claims are committed to it' },
        responseBody: itmoCertificateSchema,
        errors: ['ITMO_CLAIM_UNAVAILABLE', 'FORBIDDEN', ...askErrors],
      },
      handler: guarded(g, ['implementer'], async (ctx, who) => {
        const did = accountOf(who);
        const id = stepIdOf('itcert', did, ctx);
        const body = await jsonBody(ctx, certificateBody);
        const cert = await d.client.ask(accountRef, did, { kind: 'request-certificate', id, ...body });
        return json(201, certificateView(did, cert));
      }),
    },
    {
      method: 'GET',
      path: '/v1/itmo-certificates/:id',
      doc: {
        operationId: 'getItmoCertificate',
        summary: 'An ITMO certificate (its holder, an admin or a regulator)',
        tag: 'conversions',
        responses: { 200: 'The certificate' },
        responseBody: itmoCertificateSchema,
        errors: ['ITMO_CERTIFICATE_NOT_FOUND'],
      },
      handler: guarded(g, ['implementer', 'admin', 'regulator'], async (ctx, who) => {
        const id = ctx.params.id ?? '';
        const found = readable(who, await d.reads.itmoCertificate(id));
        if (!found) throw new AppError('ITMO_CERTIFICATE_NOT_FOUND', `no ITMO certificate ${id}`);
        return json(200, certificateView(found.did, found.certificate));
      }),
    },
    decideRoute(g, d, 'approved'),
    decideRoute(g, d, 'rejected'),
  ];
}

/** A regulator approves a certificate (it counts) or rejects it (its claims are free again). */
function decideRoute(g: Guards, d: ItmoDeps, outcome: 'approved' | 'rejected'): RouteSpec {
  const approve = outcome === 'approved';
  const body = decisionBody(approve);
  return {
    method: 'POST',
    path: `/v1/itmo-certificates/:id/${approve ? 'approve' : 'reject'}`,
    doc: {
      operationId: approve ? 'approveItmoCertificate' : 'rejectItmoCertificate',
      summary: approve
        ? 'Approve an ITMO certificate: it counts, its claims are certified (regulator)'
        : 'Reject an ITMO certificate, with the reason: its claims are free again (regulator)',
      tag: 'conversions',
      body,
      responses: { 200: 'The certificate with its decision' },
      responseBody: itmoCertificateSchema,
      errors: ['ITMO_CERTIFICATE_NOT_FOUND', 'ITMO_CERTIFICATE_DECIDED', ...askErrors],
    },
    handler: guarded(g, ['regulator'], async (ctx, who) => {
      const { reason } = await jsonBody(ctx, body);
      const id = ctx.params.id ?? '';
      const found = await d.reads.itmoCertificate(id);
      if (!found) throw new AppError('ITMO_CERTIFICATE_NOT_FOUND', `no ITMO certificate ${id}`);
      // A certificate's claims never change once requested: the account checks them all the same.
      const cert = await d.client.ask(accountRef, found.did, {
        kind: 'decide-certificate',
        id,
        outcome,
        by: who.did ?? who.keyId,
        claims: found.certificate.claims,
        ...(reason ? { reason } : {}),
      });
      return json(200, certificateView(found.did, cert));
    }),
  };
}
