import type { HttpContext } from './context.js';

/** Spec 001's CORS table. */
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, PATCH, OPTIONS';
const ALLOWED_HEADERS =
  'Content-Type, Authorization, x-ucan-delegation, x-matrix-access-token, x-matrix-homeserver, x-did, x-request-id, x-auth-type, x-timezone';

/** CORS_ORIGIN read: `*` (any origin, no credentials), or the listed origins. */
export function corsOrigins(corsOrigin: string): { any: boolean; allowed: ReadonlySet<string> } {
  const any = corsOrigin.trim() === '*';
  const allowed = new Set(
    corsOrigin
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );
  return { any, allowed };
}

/**
 * CORS headers for every reply: `*` by default (no credentials); with specific origins
 * (CORS_ORIGIN, comma-separated) a listed origin is echoed with credentials allowed and any
 * other gets no grant. `X-Request-Id` is exposed (the oracle client SDK reads it).
 */
export function corsHeaders(corsOrigin: string) {
  const { any, allowed } = corsOrigins(corsOrigin);
  return (ctx: Pick<HttpContext, 'headers' | 'method'>): Record<string, string> => {
    const headers: Record<string, string> = { 'Access-Control-Expose-Headers': 'X-Request-Id' };
    const origin = ctx.headers.origin;
    if (any) headers['Access-Control-Allow-Origin'] = '*';
    else {
      headers.Vary = 'Origin';
      if (origin && allowed.has(origin)) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Allow-Credentials'] = 'true';
      }
    }
    if (ctx.method === 'OPTIONS') {
      headers['Access-Control-Allow-Methods'] = ALLOWED_METHODS;
      headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
      headers['Access-Control-Max-Age'] = '600';
    }
    return headers;
  };
}
