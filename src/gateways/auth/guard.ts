import { isAppError } from '../../errors/index.js';
import type { ApiKeyStore } from './api-key-store.js';
import type { RateLimits } from './rate-limits.js';
import { authenticate } from './authenticate.js';
import { requireRole, type Principal, type Role } from './principal.js';
import type { HttpContext } from '../http/context.js';
import type { Reply } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import type { SupplierSignatures } from './supplier-signatures.js';
import type { IdempotencyStore } from '../http/idempotency.js';

/** The caller, by key and (suppliers) signature; a failure counts against the client's address. */
async function authenticated(ctx: HttpContext, g: Guards): Promise<Principal> {
  try {
    const who = await authenticate(ctx, g.keys);
    await g.signatures.check(ctx, who);
    return who;
  } catch (err) {
    if (isAppError(err) && err.status === 401) await g.limits.chargeAuthFailure(ctx.ip);
    throw err;
  }
}

export type AuthedHandler = (ctx: HttpContext, who: Principal) => Promise<Reply>;

export interface Guards {
  keys: ApiKeyStore;
  limits: RateLimits;
  idempotency: IdempotencyStore;
  signatures: SupplierSignatures;
}

/**
 * Authenticates the API key (and a supplier's message signature), checks the role, and (for
 * POST) honours Idempotency-Key. An address with too many failed authentications is refused
 * before its key is checked, and a key over its allowance after (429 RATE_LIMITED).
 *
 * `ownIdempotency`: the route keeps its own record of each Idempotency-Key (a conversion saga
 * is one, keyed by it) and answers a repeat with where that record stands now, not with a copy
 * of the first answer.
 */
export function guarded(
  g: Guards,
  allowed: readonly Role[],
  handler: AuthedHandler,
  options: { ownIdempotency?: boolean } = {},
): Handler {
  return async (ctx) => {
    await g.limits.checkAuthFailures(ctx.ip);
    const who = await authenticated(ctx, g);
    await g.limits.takeApiKey(who.keyId);
    requireRole(who, ...allowed);
    if (ctx.method !== 'POST' || options.ownIdempotency) return handler(ctx, who);
    return g.idempotency.run(ctx, who, () => handler(ctx, who));
  };
}
