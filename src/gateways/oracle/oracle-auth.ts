import { AppError } from '../../errors/index.js';
import type { HttpContext } from '../http/context.js';
import type { Handler } from '../http/router.js';
import type { Reply } from '../http/reply.js';
import type { UcanAuthenticator } from '../auth/ucan/index.js';
import type { RateLimits } from '../auth/rate-limits.js';

/** How the oracle's routes check their callers: the UCAN, and the request limits. */
export interface OracleAuth {
  ucan: UcanAuthenticator;
  limits: RateLimits;
}

/** The caller of an oracle route: the DID its UCAN proves, nothing else. */
export interface OracleCaller {
  did: string;
}

/**
 * A protected oracle route: the UCAN decides who calls (401 with the spec's messages
 * otherwise). Without ORACLE_DID no token can name this oracle, so the routes answer 503. An
 * address with too many failed authentications is refused before its token is checked, and a
 * DID over its allowance after (429 RATE_LIMITED).
 */
export function ucanGuarded(
  auth: OracleAuth | undefined,
  handler: (ctx: HttpContext, who: OracleCaller) => Promise<Reply>,
): Handler {
  return async (ctx) => {
    if (!auth) throw new AppError('ORACLE_NOT_CONFIGURED', 'set ORACLE_DID to serve the oracle routes');
    await auth.limits.checkAuthFailures(ctx.ip);
    // The replay guard lives in Redis: an outage there is a 503, not a 500 or a pass.
    const result = await auth.ucan.authenticate(ctx.headers).catch((err: unknown) => {
      ctx.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'ucan check failed');
      throw new AppError('UNAVAILABLE', 'authentication is unavailable (Redis); retry later', undefined, true);
    });
    if (!result.ok) {
      ctx.log.info({ reason: result.reason }, 'ucan refused');
      await auth.limits.chargeAuthFailure(ctx.ip);
      throw new AppError('UCAN_REQUIRED', result.message);
    }
    await auth.limits.takeDid(result.did);
    return handler(ctx, { did: result.did });
  };
}
