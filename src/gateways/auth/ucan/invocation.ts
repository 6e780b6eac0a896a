/**
 * The primary credential: a user-signed ucanto invocation of `{can:'*', with:'ixo:oracle'}`
 * addressed to the oracle, short-lived, and usable once.
 */
import { createHash } from 'node:crypto';
import type { API } from '@ucanto/core';
import { extractUcan } from './car.js';
import { failure, type UcanFailure } from './errors.js';
import { signedPayload, verifyUcanChain, type VerifyContext } from './verify-ucanto.js';

export const ORACLE_CAPABILITY = { can: '*', with: 'ixo:oracle' } as const;

export interface InvocationContext extends VerifyContext {
  oracleDid: string;
  maxTtlSeconds: number;
  seenNonce: (nonceKey: string, ttlSeconds: number) => Promise<boolean>;
}

export interface AcceptedToken {
  ok: true;
  did: string;
  expiration: number;
}

/** Exactly one capability, exactly the oracle one; caveats would mean a capability we don't grant. */
function isOracleCapability(capabilities: API.Capabilities): boolean {
  if (capabilities.length !== 1) return false;
  const [cap] = capabilities;
  if (!cap || cap.can !== ORACLE_CAPABILITY.can || cap.with !== ORACLE_CAPABILITY.with) return false;
  const nb: unknown = (cap as { nb?: unknown }).nb;
  return nb === undefined || (typeof nb === 'object' && nb !== null && Object.keys(nb).length === 0);
}

/** `exp` present (ucanto reads a missing one as Infinity), and no further away than the TTL allows. */
export function checkInvocationLifetime(
  expiration: number,
  nowSeconds: number,
  maxTtlSeconds: number,
): UcanFailure | undefined {
  if (!Number.isFinite(expiration)) return failure('no-expiration');
  if (expiration - nowSeconds > maxTtlSeconds) return failure('ttl-too-long');
  return undefined;
}

/**
 * The key an invocation is single-use under. With a nonce, the nonce (per issuer). Without one,
 * what was signed: unlike the CID, it stays the same when the same signed UCAN is re-encoded (its
 * JWT form lands under another CID), and unlike the signature bytes it cannot be varied by
 * anyone but the signer (ECDSA's (r, n−s), a lax verifier's Ed25519 S + k·L). A JWT UCAN of the
 * same text lands on the same key.
 */
function replayKey(ucan: API.Delegation): string {
  const issuer = ucan.issuer.did();
  if (ucan.nonce !== undefined && ucan.nonce !== '') return `${issuer}:${ucan.nonce}`;
  return signedReplayKey(issuer, signedPayload(ucan));
}

/** The replay key of a nonce-less token: its issuer and a digest of the text it signed. */
export function signedReplayKey(issuer: string, signed: string): string {
  return `${issuer}:signed:${createHash('sha256').update(signed).digest('hex')}`;
}

export async function authenticateInvocation(
  text: string,
  ctx: InvocationContext,
): Promise<AcceptedToken | UcanFailure> {
  const extracted = await extractUcan(text);
  if (!extracted.ok) return extracted;
  const { ucan } = extracted;
  if (!isOracleCapability(ucan.capabilities)) return failure('wrong-capability');
  if (ucan.audience.did() !== ctx.oracleDid) return failure('wrong-audience');
  const lifetime = checkInvocationLifetime(ucan.expiration, ctx.nowSeconds, ctx.maxTtlSeconds);
  if (lifetime) return lifetime;
  const invalid = await verifyUcanChain(ucan, ctx);
  if (invalid) return invalid;
  // Last, so that a token failing any other check does not use up its nonce.
  const first = await ctx.seenNonce(replayKey(ucan), ucan.expiration - ctx.nowSeconds);
  if (!first) return failure('replayed');
  return { ok: true, did: ucan.issuer.did(), expiration: ucan.expiration };
}
