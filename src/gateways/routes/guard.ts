import type { ApiKeyStore } from '../auth/api-key-store.js';
import { authenticate } from '../auth/authenticate.js';
import { requireRole, type Principal, type Role } from '../auth/principal.js';
import type { HttpContext } from '../http/context.js';
import type { Reply } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import type { SupplierSignatures } from '../auth/supplier-signatures.js';
import type { IdempotencyStore } from './idempotency.js';

export type AuthedHandler = (ctx: HttpContext, who: Principal) => Promise<Reply>;

export interface Guards {
  keys: ApiKeyStore;
  idempotency: IdempotencyStore;
  signatures: SupplierSignatures;
}

/**
 * Authenticates the API key (and a supplier's message signature), checks the role, and (for
 * POST) honours Idempotency-Key.
 */
export function guarded(g: Guards, allowed: readonly Role[], handler: AuthedHandler): Handler {
  return async (ctx) => {
    const who = await authenticate(ctx, g.keys);
    await g.signatures.check(ctx, who);
    requireRole(who, ...allowed);
    if (ctx.method !== 'POST') return handler(ctx, who);
    return g.idempotency.run(ctx, who, () => handler(ctx, who));
  };
}
