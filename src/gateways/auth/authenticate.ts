import { AppError } from '../../errors/index.js';
import type { HttpContext } from '../http/context.js';
import type { ApiKeyStore } from './api-key-store.js';
import type { Principal } from './principal.js';

/** `Authorization: Bearer <API_KEY>` → the caller, or 401 with a message that says what is wrong. */
export async function authenticate(ctx: HttpContext, keys: ApiKeyStore): Promise<Principal> {
  const header = ctx.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) {
    throw new AppError('UNAUTHORIZED', 'send the API key as "Authorization: Bearer <API_KEY>"');
  }
  const principal = await keys.verify(m[1]!);
  if (!principal) throw new AppError('UNAUTHORIZED', 'the API key is unknown or revoked');
  return principal;
}
