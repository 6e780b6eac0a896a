import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { jsonBody } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import type { DelegationStore } from './delegation-store.js';
import { ucanGuarded, type OracleAuth } from './oracle-auth.js';

/** StoreDelegationDto (spec 001); the optional fields, when given, must agree with the CAR. */
const storeBody = z
  .object({
    raw: z
      .string()
      .min(1)
      .max(64 * 1024),
    issuer: z.string().max(512).optional(),
    audience: z.string().max(512).optional(),
    expiration: z.number().int().min(0).optional(),
  })
  .strict();

/** Store, inspect and revoke the caller's delegation to this oracle. */
export function delegationRoutes(
  auth: OracleAuth | undefined,
  d: { store: DelegationStore; oracleDid: string; clock: () => Date },
): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/delegation',
      doc: {
        operationId: 'storeDelegation',
        summary: 'Store the caller’s delegation to this oracle (UCAN)',
        tag: 'oracle',
        body: storeBody,
        responses: { 200: 'Stored; `expiration` (Unix seconds) when the delegation has one' },
        responseBody: z.strictObject({ ok: z.literal(true), expiration: z.number().int().optional() }),
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const body = await jsonBody(ctx, storeBody);
        if (body.issuer && body.issuer !== who.did) {
          throw new AppError('VALIDATION_FAILED', 'issuer must be the DID the request is authenticated as');
        }
        if (body.audience && body.audience !== d.oracleDid) {
          throw new AppError('VALIDATION_FAILED', 'audience must be this oracle’s DID');
        }
        const check = await auth!.ucan.checkDelegationForStore(body.raw, who.did);
        if (!check.ok) throw new AppError('VALIDATION_FAILED', check.message);
        if (body.expiration !== undefined && body.expiration !== check.expiration) {
          throw new AppError(
            'VALIDATION_FAILED',
            `expiration must be the delegation's own (${check.expiration ?? 'none'}), or left out`,
          );
        }
        await d.store.put(who.did, body.raw, check.id, check.expiration);
        return json(200, { ok: true, ...(check.expiration === undefined ? {} : { expiration: check.expiration }) });
      }),
    },
    {
      method: 'GET',
      path: '/delegation',
      doc: {
        operationId: 'getDelegation',
        summary: 'Whether the caller has a live delegation (UCAN)',
        tag: 'oracle',
        responses: { 200: 'Whether a stored delegation is live, and when it expires (Unix seconds) if it does' },
        responseBody: z.strictObject({ authorized: z.boolean(), expiration: z.number().int().optional() }),
      },
      handler: ucanGuarded(auth, async (_ctx, who) => json(200, await d.store.status(who.did, d.clock()))),
    },
    {
      method: 'DELETE',
      path: '/delegation',
      doc: {
        operationId: 'revokeDelegation',
        summary: 'Revoke the caller’s delegation (UCAN)',
        tag: 'oracle',
        responses: { 200: 'Revoked (also when there was none)' },
        responseBody: z.strictObject({ ok: z.literal(true) }),
      },
      handler: ucanGuarded(auth, async (_ctx, who) => {
        await d.store.remove(who.did);
        return json(200, { ok: true });
      }),
    },
  ];
}
