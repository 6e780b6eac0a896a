import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { apiKeyRecordSchema, type ApiKeyStore } from './api-key-store.js';
import { roles } from './principal.js';
import { jsonBody } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from './guard.js';
import type { OperatorActions } from '../operators/service.js';
import { did } from '../http/fields.js';
import type { Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';

const createKey = z
  .object({ role: z.enum(roles), did: did.optional(), label: z.string().trim().min(1).max(200).optional() })
  .strict()
  .superRefine((k, ctx) => {
    // Suppliers and households act for a DID; a regulator may have one (it signs verifications),
    // an implementer too (its account, for the token conversion flow).
    const acts = k.role === 'supplier' || k.role === 'household';
    if (acts && !k.did) ctx.addIssue({ code: 'custom', path: ['did'], message: `is required for a ${k.role} key` });
    if (k.role === 'admin' && k.did) {
      ctx.addIssue({
        code: 'custom',
        path: ['did'],
        message: 'is only for supplier, household, regulator and implementer keys',
      });
    }
  });

/** The key as created: its record, the key itself (shown this once), and why it cannot be used yet. */
const createdKey = apiKeyRecordSchema.extend({
  key: z.string().regex(/^hk_[a-z0-9]{16}_[A-Za-z0-9_-]{43}$/),
  warnings: z.array(z.string()).optional(),
});

function unregisteredSupplier(did: string): string {
  return `no supplier is registered for ${did} yet: this key's requests are refused (403 SUPPLIER_NOT_AUTHORIZED) until POST /v1/suppliers registers it`;
}

/**
 * Admins issue keys (`POST /v1/api-keys`, the secret shown once), list them and revoke them. A
 * supplier key for a DID with no supplier record is issued (the record may follow), with a
 * warning: until the record exists its requests are refused. Issuing and revoking are recorded
 * as operator actions (who, when, which key: never its secret).
 */
export function apiKeyRoutes(
  g: Guards,
  keys: ApiKeyStore,
  suppliers: Registry<Supplier>,
  actions: OperatorActions,
): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/v1/api-keys',
      doc: {
        operationId: 'createApiKey',
        summary: 'Create an API key (admin); the key is shown once',
        tag: 'keys',
        body: createKey,
        responses: { 201: 'The key record with `key`, and `warnings` when the key cannot be used yet' },
        responseBody: createdKey,
      },
      handler: guarded(g, ['admin'], async (ctx, who) => {
        const body = await jsonBody(ctx, createKey);
        const unregistered = body.role === 'supplier' && body.did && !(await suppliers.get(body.did));
        const { key, record } = await keys.create(body.role, body.did, body.label);
        await actions.record(who.keyId, 'api-key.create', record.id, {
          role: record.role,
          ...(record.did ? { did: record.did } : {}),
          ...(record.label ? { label: record.label } : {}),
        });
        return json(201, { ...record, key, ...(unregistered ? { warnings: [unregisteredSupplier(body.did!)] } : {}) });
      }),
    },
    {
      method: 'GET',
      path: '/v1/api-keys',
      doc: {
        operationId: 'listApiKeys',
        summary: 'List API keys without their secrets (admin)',
        tag: 'keys',
        responses: { 200: 'Every key, oldest first' },
        responseBody: z.strictObject({ items: z.array(apiKeyRecordSchema) }),
      },
      handler: guarded(g, ['admin'], async () => json(200, { items: await keys.list() })),
    },
    {
      method: 'DELETE',
      path: '/v1/api-keys/:id',
      doc: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (admin)',
        tag: 'keys',
        responses: { 200: 'The revoked key record' },
        responseBody: apiKeyRecordSchema,
        errors: ['NOT_FOUND'],
      },
      handler: guarded(g, ['admin'], async (ctx, who) => {
        const revoked = await keys.revoke(ctx.params.id ?? '');
        if (!revoked) throw new AppError('NOT_FOUND', `no API key ${ctx.params.id}`);
        await actions.record(who.keyId, 'api-key.revoke', revoked.id, { role: revoked.role });
        return json(200, revoked);
      }),
    },
  ];
}
