import type { HttpContext } from '../../http/context.js';
import type { Reply } from '../../http/reply.js';
import type { Method, RouteDoc } from '../../http/router.js';
import type { OracleTool } from './tools.js';

/** A route a plugin adds: UCAN-protected (the caller's DID given) unless its path is auth-excluded. */
interface PluginRoute {
  method: Method;
  path: string;
  doc: RouteDoc;
  handler(ctx: HttpContext, who: { did: string } | undefined): Promise<Reply>;
}

/**
 * What a deployment adds to the oracle without touching it: routes (protected unless listed in
 * `authExcludedRoutes`), agent tools, and a check before each message turn (a credits gate
 * throws an AppError with status 402 there). Plugins' routes appear in the OpenAPI document.
 */
export interface OraclePlugin {
  name: string;
  routes?: PluginRoute[];
  /** `METHOD /path` of routes that take no UCAN (webhooks, say). */
  authExcludedRoutes?: string[];
  tools?: OracleTool[];
  beforeMessage?(who: { did: string }): Promise<void>;
}
