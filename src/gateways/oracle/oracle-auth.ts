import { AppError } from '../../errors/index.js';
import type { HttpContext } from '../http/context.js';
import type { Handler } from '../http/router.js';
import type { Reply } from '../http/reply.js';
import type { UcanAuthenticator } from '../auth/ucan/index.js';

/** The caller of an oracle route: the DID its UCAN proves, nothing else. */
export interface OracleCaller {
  did: string;
}

/**
 * A protected oracle route: the UCAN decides who calls (401 with the spec's messages
 * otherwise). Without ORACLE_DID no token can name this oracle, so the routes answer 503.
 */
export function ucanGuarded(
  auth: UcanAuthenticator | undefined,
  handler: (ctx: HttpContext, who: OracleCaller) => Promise<Reply>,
): Handler {
  return async (ctx) => {
    if (!auth) throw new AppError('ORACLE_NOT_CONFIGURED', 'set ORACLE_DID to serve the oracle routes');
    // The replay guard lives in Redis: an outage there is a 503, not a 500 or a pass.
    const result = await auth.authenticate(ctx.headers).catch((err: unknown) => {
      ctx.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'ucan check failed');
      throw new AppError('UNAVAILABLE', 'authentication is unavailable (Redis); retry later', undefined, true);
    });
    if (!result.ok) {
      ctx.log.info({ reason: result.reason }, 'ucan refused');
      throw new AppError('UCAN_REQUIRED', result.message);
    }
    return handler(ctx, { did: result.did });
  };
}
