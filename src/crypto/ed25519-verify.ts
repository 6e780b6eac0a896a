import { verify } from 'node:crypto';
import { ed25519PublicKey } from './ed25519-keys.js';

/**
 * L, the order of Ed25519's base point (2^252 + 27742317777372353535851937790883648493), written
 * little-endian as a signature's S is.
 */
const ORDER_LE = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');

/**
 * Whether S (the last 32 bytes of a 64-byte signature) is below L. RFC 8032 §5.1.7 requires it;
 * some verifiers skip the check, and then S + k·L verifies too: one signed message gets up to 16
 * different signatures, and anything keyed on signature bytes (a replay memory) is fooled.
 */
export function hasCanonicalScalar(signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i] as number;
    const l = ORDER_LE[i] as number;
    if (s !== l) return s < l;
  }
  return false; // S = L
}

/**
 * The one Ed25519 check of every verify path (JWT UCANs, ucanto tokens, JWS claim proofs, RFC 9421
 * signatures): a raw 32-byte key, a 64-byte signature whose S is canonical, and node:crypto's
 * verify. Never throws: a malformed key or signature does not verify.
 */
export function verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || !hasCanonicalScalar(signature)) return false;
  try {
    return verify(null, data, ed25519PublicKey(publicKey), signature);
  } catch {
    return false;
  }
}
