import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../errors/index.js';
import { decimal } from './conversion-view.js';
import type { Principal } from '../auth/principal.js';
import type { HttpContext } from '../http/context.js';

/** The DID a caller's money moves for: a supplier's key always has one, an implementer's may not. */
export function accountOf(who: Principal): string {
  if (!who.did) {
    throw new AppError('FORBIDDEN', 'this key acts for no DID: moving money needs a key created with one');
  }
  return who.did;
}

const keyShape = /^[A-Za-z0-9._:-]{1,255}$/;

/**
 * The id of an operation that moves money, from who asks and their Idempotency-Key, which is
 * required: a retried request finds its operation (a conversion saga, a deposit step), and
 * another DID's request with the same key is another operation.
 */
export function stepIdOf(prefix: string, did: string, ctx: HttpContext): string {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined || !keyShape.test(key)) {
    throw new AppError(
      'IDEMPOTENCY_KEY_REQUIRED',
      'this operation moves money and needs an Idempotency-Key: 1-255 letters, digits, . _ : -',
    );
  }
  return `${prefix}_${createHash('sha256').update(`${did}\u0000${key}`).digest('hex').slice(0, 32)}`;
}

/** An account's refusal, counted in micro-units, in the decimals a caller reads (others pass). */
export function inDecimals(err: unknown): never {
  if (isAppError(err) && err.code === 'INSUFFICIENT_BALANCE' && err.details) {
    const { asset, available } = err.details as { asset: string; available: string };
    throw new AppError(err.code, err.message, { asset, available: decimal(available) });
  }
  throw err;
}
