/**
 * Which credential decides, and which of the spec's two 401 messages answers a failure:
 *
 * - `Authorization: Bearer <x>` counts only with `X-Auth-Type: ucan` (exact value); then the
 *   invocation decides alone, a bad one is "Invalid UCAN invocation" even if a delegation came too.
 * - Otherwise `x-ucan-delegation` is the credential, and a bad one answers "Missing UCAN
 *   authentication…" (as the reference runtime does).
 * - A bearer value shaped like a JWT is a `ucans` JWT UCAN; anything else is a base64 CAR.
 *
 * Only `seenNonce` can make these functions throw (Redis unavailable is a server error, not a 401).
 */
import { createVerifierResolver } from './did-resolver.js';
import { verifyDelegation, type DelegationContext } from './delegation.js';
import {
  describeFailure,
  failure,
  INVALID_INVOCATION_MESSAGE,
  MISSING_UCAN_MESSAGE,
  type UcanFailure,
} from './errors.js';
import { authenticateInvocation, type AcceptedToken, type InvocationContext } from './invocation.js';
import { authenticateJwtUcan } from './jwt-ucan.js';
import { checkTokenText, looksLikeJwt } from './token-text.js';
import type { UcanAuthenticator, UcanAuthOptions, UcanAuthResult } from './types.js';

function rejected(message: string, { reason }: UcanFailure): UcanAuthResult {
  return { ok: false, status: 401, message, reason };
}

/** The bearer value when, and only when, the request selected UCAN auth. */
function selectedBearer(headers: Record<string, string | undefined>): string | undefined {
  if (headers['x-auth-type'] !== 'ucan') return undefined;
  const m = /^Bearer[ \t]+(.*)$/is.exec(headers.authorization ?? '');
  const token = m?.[1]?.trim();
  return token ? token : undefined;
}

/** Socket clients put the bare token in `auth.invocation`; tolerate a copied "Bearer " prefix. */
function handshakeValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.replace(/^Bearer[ \t]+/i, '').trim();
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

export function createUcanAuthenticator(opts: UcanAuthOptions): UcanAuthenticator {
  const now = opts.now ?? Date.now;
  const resolveVerifier = createVerifierResolver(opts.resolveDid);

  const invocationContext = (): InvocationContext => ({
    nowSeconds: Math.floor(now() / 1000),
    resolveVerifier,
    oracleDid: opts.oracleDid,
    maxTtlSeconds: opts.maxInvocationTtlSeconds,
    seenNonce: opts.seenNonce,
  });
  /** Revoked by what it signed, or (a revocation from before that rule) by its content id. */
  const revoked = async (d: { id: string; cid: string }): Promise<boolean> =>
    !!opts.isRevoked && ((await opts.isRevoked(d.id)) || (await opts.isRevoked(d.cid)));

  const delegationContext = (): DelegationContext => ({
    nowSeconds: Math.floor(now() / 1000),
    resolveVerifier,
    oracleDid: opts.oracleDid,
  });

  async function byInvocation(value: unknown): Promise<UcanAuthResult> {
    const checked = checkTokenText(value);
    if (!checked.ok) return rejected(INVALID_INVOCATION_MESSAGE, checked);
    const jwt = looksLikeJwt(checked.text);
    const accepted: AcceptedToken | UcanFailure = jwt
      ? await authenticateJwtUcan(checked.text, invocationContext())
      : await authenticateInvocation(checked.text, invocationContext());
    if (!accepted.ok) return rejected(INVALID_INVOCATION_MESSAGE, accepted);
    return { ok: true, did: accepted.did, via: jwt ? 'jwt' : 'invocation', expiration: accepted.expiration };
  }

  async function byDelegation(value: unknown): Promise<UcanAuthResult> {
    const checked = checkTokenText(value);
    if (!checked.ok) return rejected(MISSING_UCAN_MESSAGE, checked);
    const accepted = await verifyDelegation(checked.text, delegationContext());
    if (!accepted.ok) return rejected(MISSING_UCAN_MESSAGE, accepted);
    if (await revoked(accepted)) return rejected(MISSING_UCAN_MESSAGE, failure('revoked'));
    return {
      ok: true,
      did: accepted.did,
      via: 'delegation',
      ...(accepted.expiration !== undefined && { expiration: accepted.expiration }),
    };
  }

  /**
   * The invocation first (the spec's primary), the delegation as the fallback: also when an
   * invocation is present but refused. An invocation is single-use, and socket.io-client (like an
   * EventSource) sends the same credentials again on every automatic reconnect; with the fallback
   * the reconnect stands on the delegation, which a client may present alone anyway. When both
   * are refused, the invocation's refusal is the answer.
   */
  async function primaryOrFallback(invocation: unknown, delegation: unknown): Promise<UcanAuthResult> {
    if (isAbsent(invocation)) {
      return isAbsent(delegation) ? rejected(MISSING_UCAN_MESSAGE, failure('missing')) : byDelegation(delegation);
    }
    const primary = await byInvocation(invocation);
    if (primary.ok || isAbsent(delegation)) return primary;
    const fallback = await byDelegation(delegation);
    return fallback.ok ? fallback : primary;
  }

  return {
    async authenticate(headers) {
      return primaryOrFallback(selectedBearer(headers), headers['x-ucan-delegation']);
    },

    async authenticateHandshake(auth) {
      return primaryOrFallback(handshakeValue(auth.invocation), handshakeValue(auth.ucanDelegation));
    },

    async checkDelegationForStore(rawBase64Car, callerDid) {
      const checked = checkTokenText(rawBase64Car);
      if (!checked.ok) return { ok: false, message: describeFailure(checked.reason) };
      const accepted = await verifyDelegation(checked.text, delegationContext());
      if (!accepted.ok) return { ok: false, message: describeFailure(accepted.reason) };
      if (accepted.did !== callerDid) return { ok: false, message: describeFailure('wrong-issuer') };
      if (await revoked(accepted)) return { ok: false, message: describeFailure('revoked') };
      return {
        ok: true,
        id: accepted.id,
        ...(accepted.expiration !== undefined && { expiration: accepted.expiration }),
      };
    },
  };
}
