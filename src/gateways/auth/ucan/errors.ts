/**
 * The two 401 messages of spec 001 ("Errors"), verbatim, and the machine-readable reasons behind
 * them. Clients only ever see the message; the reason is for logs and tests, and never carries
 * any part of a token.
 */
export const MISSING_UCAN_MESSAGE =
  'Missing UCAN authentication: provide Authorization: Bearer <invocation> with X-Auth-Type: ucan, or an x-ucan-delegation header';
export const INVALID_INVOCATION_MESSAGE = 'Invalid UCAN invocation';

export type UcanFailureReason =
  // Nothing usable was sent.
  | 'missing'
  // The token's transport encoding.
  | 'not-a-string'
  | 'too-large'
  | 'not-base64'
  | 'not-a-car'
  | 'block-hash-mismatch'
  | 'not-a-ucan'
  | 'malformed-jwt'
  // What the token says.
  | 'wrong-audience'
  | 'wrong-capability'
  | 'wrong-issuer'
  | 'no-expiration'
  | 'expired'
  | 'not-yet-valid'
  | 'ttl-too-long'
  // Who signed it.
  | 'unsupported-did'
  | 'did-unresolvable'
  | 'bad-signature'
  // Its proofs.
  | 'proof-unavailable'
  | 'proof-invalid'
  | 'proof-chain-too-long'
  // Its use.
  | 'replayed'
  | 'revoked';

/** A failed check, carried up to the point that knows which of the two messages applies. */
export interface UcanFailure {
  ok: false;
  reason: UcanFailureReason;
}

export function failure(reason: UcanFailureReason): UcanFailure {
  return { ok: false, reason };
}

/** Short, token-free explanations for the POST /delegation answer. */
const descriptions: Record<UcanFailureReason, string> = {
  missing: 'no delegation was sent',
  'not-a-string': 'the delegation is not a string',
  'too-large': 'the delegation is too large',
  'not-base64': 'the delegation is not base64',
  'not-a-car': 'the delegation is not a CAR archive of a UCAN',
  'block-hash-mismatch': 'a block of the archive does not match its CID',
  'not-a-ucan': 'the archive does not hold a UCAN',
  'malformed-jwt': 'the token is not a well-formed UCAN JWT',
  'wrong-audience': "the delegation's audience is not this oracle",
  'wrong-capability': 'the capability is not the one this oracle accepts',
  'wrong-issuer': 'the delegation was not issued by the caller',
  'no-expiration': 'the token has no expiration',
  expired: 'the delegation or one of its proofs has expired',
  'not-yet-valid': 'the delegation or one of its proofs is not valid yet',
  'ttl-too-long': 'the token expires too far in the future',
  'unsupported-did': "the issuer's DID method is not supported",
  'did-unresolvable': "the issuer's DID could not be resolved to a key",
  'bad-signature': 'a signature does not verify',
  'proof-unavailable': 'a proof is referenced but not included',
  revoked: 'the delegation was revoked by its issuer',
  'proof-invalid': 'a proof does not verify',
  'proof-chain-too-long': 'the proof chain is too long',
  replayed: 'the token was already used',
};

export function describeFailure(reason: UcanFailureReason): string {
  return `Invalid UCAN delegation: ${descriptions[reason]}`;
}
