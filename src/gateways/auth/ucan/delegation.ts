/**
 * The fallback credential and the stored one: a delegation from the user to the oracle. It is
 * long-lived and reusable by design (it is what the oracle acts on downstream), so no replay check.
 */
import { extractUcan } from './car.js';
import { failure, type UcanFailure } from './errors.js';
import { verifyUcanChain, type VerifyContext } from './verify-ucanto.js';

export interface DelegationContext extends VerifyContext {
  oracleDid: string;
}

export interface AcceptedDelegation {
  ok: true;
  did: string;
  /** Its content id: what a revocation names. */
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
    cid: ucan.cid.toString(),
    ...(Number.isFinite(ucan.expiration) && { expiration: ucan.expiration }),
  };
}
