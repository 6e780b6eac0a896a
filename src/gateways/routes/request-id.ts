import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { HttpContext } from '../http/context.js';

/**
 * The id an actor remembers a request by: the client's Idempotency-Key (per API key) when there
 * is one, so that a retry after a timeout is answered, not applied again; else the request id.
 */
export function requestIdOf(ctx: HttpContext, who: Principal): string {
  const key = ctx.headers['idempotency-key'];
  return key ? createHash('sha256').update(`${who.keyId}\u0000${key}`).digest('hex') : ctx.reqId;
}
