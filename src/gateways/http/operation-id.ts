import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { HttpContext } from './context.js';

/**
 * The id an actor remembers a request by: the client's Idempotency-Key, scoped to its API key,
 * so that a retry after a timeout is answered, not applied again. Without one, a fresh server
 * id: a client-chosen X-Request-Id must never make two operations look like one.
 */
export function requestIdOf(ctx: HttpContext, who: Principal): string {
  const key = ctx.headers['idempotency-key'];
  return key ? createHash('sha256').update(`${who.keyId}\u0000${key}`).digest('hex') : `srv:${randomUUID()}`;
}
