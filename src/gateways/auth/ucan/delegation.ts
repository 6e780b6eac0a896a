/**
 * The fallback credential and the stored one: a delegation from the user to the oracle. It is
 * long-lived and reusable by design (it is what the oracle acts on downstream), so no replay check.
 */
import { createHash } from 'node:crypto';
import { extractUcan } from './car.js';
import { failure, type UcanFailure } from './errors.js';
import { signedPayload, verifyUcanChain, type VerifyContext } from './verify-ucanto.js';

export interface DelegationContext extends VerifyContext {
  oracleDid: string;
}

export interface AcceptedDelegation {
  ok: true;
  did: string;
  /**
   * What a revocation names: the issuer and a digest of what it signed. Unlike the content id,
   * it stays the same when the same signed delegation is re-encoded (a re-spaced JWT form lands
   * under another CID and still verifies), so a revoked delegation cannot come back that way.
   */
  id: string;
  /** Its content id (revocations made before `id` existed name this). */
  cid: string;
  /** Unix seconds; undefined for a delegation without `exp`. */
  expiration?: number;
}

export async function verifyDelegation(
  text: string,
  ctx: DelegationContext,
): Promise<AcceptedDelegation | UcanFailure> {
  const extracted = await extractUcan(text);
  if (!extracted.ok) return extracted;
  const { ucan } = extracted;
  if (ucan.audience.did() !== ctx.oracleDid) return failure('wrong-audience');
  const invalid = await verifyUcanChain(ucan, ctx);
  if (invalid) return invalid;
  return {
    ok: true,
    did: ucan.issuer.did(),
    id: `signed:${createHash('sha256')
      .update(`${ucan.issuer.did()}\n${signedPayload(ucan)}`)
      .digest('hex')}`,
    cid: ucan.cid.toString(),
    ...(Number.isFinite(ucan.expiration) && { expiration: ucan.expiration }),
  };
}
