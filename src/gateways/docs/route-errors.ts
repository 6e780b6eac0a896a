import { errorCodes, type ErrorCode } from '../../errors/index.js';
import type { RouteSpec } from '../http/router.js';

/**
 * The error codes a route answers by its kind, whatever its handler does: the API-key guard
 * (auth/guard.ts: key, supplier signature, role, rate limits, and Idempotency-Key on POST), the
 * UCAN guard (oracle/oracle-auth.ts), a JSON body read with `jsonBody`, an Idempotency-Key the
 * route requires (RouteDoc.idempotencyKey), PostgreSQL down, and a draining process
 * (http/server.ts). A route lists the rest itself (RouteDoc.errors).
 */
function impliedErrors(r: RouteSpec): ErrorCode[] {
  const codes: ErrorCode[] = [];
  const apiKey = !r.doc.public && r.doc.auth !== 'ucan';
  if (apiKey) {
    codes.push('UNAUTHORIZED', 'SIGNATURE_REQUIRED', 'SIGNATURE_INVALID', 'SIGNATURE_REPLAYED', 'FORBIDDEN');
    codes.push('RATE_LIMITED');
    // Idempotency-Key: its shape is checked, and the body read to tell a retry from another request.
    if (r.method === 'POST') {
      codes.push('VALIDATION_FAILED', 'BODY_TOO_LARGE', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS');
    }
  }
  if (r.doc.idempotencyKey === 'required') codes.push('IDEMPOTENCY_KEY_REQUIRED');
  if (!r.doc.public && r.doc.auth === 'ucan') {
    // UNAVAILABLE: the nonce guard lives in Redis.
    codes.push('UCAN_REQUIRED', 'RATE_LIMITED', 'ORACLE_NOT_CONFIGURED', 'UNAVAILABLE');
  }
  // Other media types are read by the route's own parser, which says what it refuses.
  if (r.doc.body && !r.doc.bodyTypes) {
    codes.push('VALIDATION_FAILED', 'INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'BODY_TOO_LARGE');
  }
  // A route with a deadline answer of its own (USSD's END line) gives it instead.
  if (r.usesDatabase !== false && typeof r.deadline !== 'object') codes.push('UNAVAILABLE');
  if (!r.serveWhileDraining) codes.push('SHUTTING_DOWN');
  return codes;
}

/** The route's error codes, its own and implied, by HTTP status (each once, in a stable order). */
export function errorsByStatus(r: RouteSpec): Map<number, ErrorCode[]> {
  const all = new Set<ErrorCode>([...impliedErrors(r), ...(r.doc.errors ?? [])]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(errorCodes) as ErrorCode[]) {
    if (!all.has(code)) continue;
    const status = errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** One line per code: `` `CODE`: what it means `` (errors/codes.ts). */
export function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((c) => `- \`${c}\`: ${errorCodes[c].doc}`).join('\n');
}
