/**
 * JWT UCANs (the `ucans` library's format) accepted as invocations: same audience, capability,
 * lifetime and single-use rules as the ucanto invocation, with the JWT's own signature scheme.
 */
import { createRequire } from 'node:module';
import type * as UcansModule from 'ucans';
import { failure, type UcanFailure } from './errors.js';
import type { ResolveVerifier } from './did-resolver.js';
import { verifyEd25519 } from '../../../crypto/ed25519-verify.js';
import {
  checkInvocationLifetime,
  ORACLE_CAPABILITY,
  signedReplayKey,
  type AcceptedToken,
  type InvocationContext,
} from './invocation.js';

type Ucans = typeof UcansModule;
type Ucan = Awaited<ReturnType<Ucans['validate']>>;

/**
 * ucans@0.10's ESM build imports extension-less paths, which Node's ESM loader refuses; its
 * CommonJS build (the package's `require` export) loads fine.
 */
const ucans = createRequire(import.meta.url)('ucans') as Ucans;

const oracleCapability = {
  with: { scheme: 'ixo', hierPart: 'oracle' },
  can: ORACLE_CAPABILITY.can,
} as const;

/** JWT `alg` for each key type ucans can put in a did:key. */
const algorithmOf: Record<string, string> = { ed25519: 'EdDSA', rsa: 'RS256', p256: 'ES256' };

/** Bounds the proof recursion (each level may call the DID resolver). */
const MAX_PROOF_DEPTH = 4;

function parseJwt(text: string): Ucan | undefined {
  try {
    const { header, payload } = ucans.parse(text);
    const [encodedHeader, encodedPayload, signature] = text.split('.');
    if (!signature) return undefined;
    return { header, payload, signedData: `${encodedHeader}.${encodedPayload}`, signature };
  } catch {
    // ucans' error messages quote the whole token, so they are dropped rather than passed on.
    return undefined;
  }
}

/** The issuer's key as a did:key (resolving did:ixo through the configured resolver). */
async function issuerDidKey(iss: string, resolveVerifier: ResolveVerifier): Promise<string | UcanFailure> {
  const resolved = await resolveVerifier(iss);
  if (!resolved.ok) return resolved;
  try {
    return resolved.verifier.toDIDKey();
  } catch {
    return failure('unsupported-did');
  }
}

async function checkJwtSignature(ucan: Ucan, resolveVerifier: ResolveVerifier): Promise<UcanFailure | undefined> {
  const didKey = await issuerDidKey(ucan.payload.iss, resolveVerifier);
  if (typeof didKey !== 'string') return didKey;
  try {
    const { publicKey, type } = ucans.didToPublicKey(didKey);
    if (algorithmOf[type] !== ucan.header.alg) return failure('bad-signature');
    // ucans checks Ed25519 with @stablelib, which accepts a non-canonical S (S + k·L); hearth's own
    // check refuses it. Other key types stay with ucans (their replay key does not rest on bytes).
    const valid =
      type === 'ed25519'
        ? verifyEd25519(Buffer.from(publicKey, 'base64'), Buffer.from(ucan.signedData), exactBase64url(ucan.signature))
        : await ucans.verifySignatureUtf8(ucan.signedData, ucan.signature, didKey);
    return valid ? undefined : failure('bad-signature');
  } catch {
    return failure('bad-signature');
  }
}

function checkJwtTimeBounds(ucan: Ucan, nowSeconds: number): UcanFailure | undefined {
  if (ucan.payload.exp <= nowSeconds) return failure('expired');
  if (ucan.payload.nbf !== undefined && ucan.payload.nbf > nowSeconds) return failure('not-yet-valid');
  return undefined;
}

/** Proofs are JWT strings themselves; each must be authentic and live. */
async function checkJwtProofs(ucan: Ucan, ctx: InvocationContext, depth: number): Promise<UcanFailure | undefined> {
  if (ucan.payload.prf.length > 0 && depth >= MAX_PROOF_DEPTH) return failure('proof-chain-too-long');
  for (const encoded of ucan.payload.prf) {
    const proof = parseJwt(encoded);
    if (!proof) return failure('proof-unavailable');
    const invalid =
      checkJwtTimeBounds(proof, ctx.nowSeconds) ??
      (await checkJwtSignature(proof, ctx.resolveVerifier)) ??
      (await checkJwtProofs(proof, ctx, depth + 1));
    if (invalid) return invalid.reason === 'bad-signature' ? failure('proof-invalid') : invalid;
  }
  return undefined;
}

/**
 * The signature's bytes, or none when the text is not their one unpadded base64url spelling
 * (Node's decoder skips stray characters and ignores spare bits).
 */
function exactBase64url(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : new Uint8Array(0);
}

/** Nonce per issuer when present; otherwise what was signed (`header.payload`), never the signature. */
function jwtReplayKey(ucan: Ucan): string {
  const { iss, nnc } = ucan.payload;
  if (nnc !== undefined && nnc !== '') return `${iss}:${nnc}`;
  return signedReplayKey(iss, ucan.signedData);
}

export async function authenticateJwtUcan(text: string, ctx: InvocationContext): Promise<AcceptedToken | UcanFailure> {
  const ucan = parseJwt(text);
  if (!ucan) return failure('malformed-jwt');
  const { payload } = ucan;
  if (!payload.att.some((cap) => ucans.capability.isEqual(cap, oracleCapability))) {
    return failure('wrong-capability');
  }
  if (payload.aud !== ctx.oracleDid) return failure('wrong-audience');
  const invalid =
    checkInvocationLifetime(payload.exp, ctx.nowSeconds, ctx.maxTtlSeconds) ??
    checkJwtTimeBounds(ucan, ctx.nowSeconds) ??
    (await checkJwtSignature(ucan, ctx.resolveVerifier)) ??
    (await checkJwtProofs(ucan, ctx, 0));
  if (invalid) return invalid;
  const first = await ctx.seenNonce(jwtReplayKey(ucan), payload.exp - ctx.nowSeconds);
  if (!first) return failure('replayed');
  return { ok: true, did: payload.iss, expiration: payload.exp };
}
