/**
 * Checks every ucanto token shares: the signature verifies against the issuer's key and the time
 * bounds hold, for the token itself and for each proof it carries (recursively). Capability
 * semantics are the caller's business; this only establishes that the chain is authentic and live.
 */
import { isDelegation, UCAN, type API } from '@ucanto/core';
import { verifyEd25519 } from '../../../crypto/ed25519-verify.js';
import { failure, type UcanFailure } from './errors.js';
import type { ResolveVerifier } from './did-resolver.js';

/**
 * dag-ucan's signature check, reached through @ucanto/core's `UCAN` re-export. That re-export is
 * declared as `@ipld/dag-ucan/.`, which TypeScript can't resolve under NodeNext and types as `any`;
 * this restates dag-ucan's real signature. It checks the UCAN's `iss` equals `verifier.did()` too.
 */
const { verifySignature, format } = UCAN as unknown as {
  verifySignature(this: void, ucan: API.Delegation['data'], verifier: API.Verifier): API.Await<boolean>;
  /** A model (no `jwt` text of its own) formatted canonically: `header.payload.signature`. */
  format(this: void, model: unknown): string;
};

/**
 * What the issuer signed, as dag-ucan checks it: the canonical `header.payload` of the UCAN's
 * model, the same text whichever encoding (CBOR, a JWT, a re-spaced JWT) the UCAN came in.
 */
export function signedPayload(ucan: API.Delegation): string {
  // A model decoded from a JWT keeps its text under `jwt`, which format() would hand back as sent.
  const { jwt: _sent, ...model } = (ucan.data as unknown as { model: { jwt?: string } }).model;
  const jwt = format(model);
  return jwt.slice(0, jwt.lastIndexOf('.'));
}

/** Multicodec of an Ed25519 signature (what ucanto puts in `signature.code`). */
const ED25519_SIGNATURE = 0xd0ed;

/**
 * The same check as ucanto's Ed25519 verifier, done by node:crypto (native) instead of the
 * pure-JS @noble/ed25519: a few milliseconds of the event loop per request become tens of
 * microseconds (measured: 1,000 SSE requests at once waited ~5 s behind signature checks); a
 * non-canonical S is refused (see verifyEd25519). Any other kind of verifier is used as it is.
 */
function nativeVerifier(v: API.Verifier): API.Verifier {
  const inner = ((v as unknown as { key?: unknown }).key ?? v) as { publicKey?: Uint8Array };
  const raw = inner.publicKey;
  if (!(raw instanceof Uint8Array) || raw.length !== 32) return v;
  const verify = (payload: Uint8Array, signature: { code: number; raw: Uint8Array }): boolean =>
    signature.code === ED25519_SIGNATURE && verifyEd25519(raw, payload, signature.raw);
  return { did: () => v.did(), verify } as unknown as API.Verifier;
}

/** Real delegation chains are one or two links long; the bound stops resolver fan-out. */
const MAX_PROOFS = 16;

export interface VerifyContext {
  nowSeconds: number;
  resolveVerifier: ResolveVerifier;
}

/** Expiration may be Infinity (ucanto's encoding of "no exp"); callers that need one check it. */
function checkTimeBounds(ucan: API.Delegation, nowSeconds: number): UcanFailure | undefined {
  if (ucan.expiration <= nowSeconds) return failure('expired');
  if (ucan.notBefore !== undefined && ucan.notBefore > nowSeconds) return failure('not-yet-valid');
  return undefined;
}

async function checkSignature(ucan: API.Delegation, ctx: VerifyContext): Promise<UcanFailure | undefined> {
  const resolved = await ctx.resolveVerifier(ucan.issuer.did());
  if (!resolved.ok) return resolved;
  let valid: boolean;
  try {
    valid = await verifySignature(ucan.data, nativeVerifier(resolved.verifier));
  } catch {
    valid = false;
  }
  return valid ? undefined : failure('bad-signature');
}

/** Each included proof: authentic and live. A proof only linked by CID can't be checked, so it fails. */
async function checkProofs(
  ucan: API.Delegation,
  ctx: VerifyContext,
  budget: { left: number },
): Promise<UcanFailure | undefined> {
  let proofs: API.Proof[];
  try {
    proofs = ucan.proofs;
  } catch {
    return failure('proof-invalid');
  }
  for (const proof of proofs) {
    if (--budget.left < 0) return failure('proof-chain-too-long');
    if (!isDelegation(proof)) return failure('proof-unavailable');
    try {
      void proof.data;
    } catch {
      return failure('proof-invalid');
    }
    const time = checkTimeBounds(proof, ctx.nowSeconds);
    if (time) return time;
    const signature = await checkSignature(proof, ctx);
    if (signature) return signature.reason === 'bad-signature' ? failure('proof-invalid') : signature;
    const deeper = await checkProofs(proof, ctx, budget);
    if (deeper) return deeper;
  }
  return undefined;
}

/** Undefined when `ucan` and all its proofs are authentic and within their time bounds. */
export async function verifyUcanChain(ucan: API.Delegation, ctx: VerifyContext): Promise<UcanFailure | undefined> {
  return (
    checkTimeBounds(ucan, ctx.nowSeconds) ??
    (await checkSignature(ucan, ctx)) ??
    (await checkProofs(ucan, ctx, { left: MAX_PROOFS }))
  );
}
