import { verifyEd25519 } from '../../crypto/ed25519-verify.js';

export interface VerifiedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/**
 * Verifies a compact JWS signed with EdDSA (Ed25519) by `publicKey` (raw, base64url). Returns
 * undefined for anything malformed, of another algorithm, or not verifying.
 */
export function verifyCompactJws(jws: string, publicKey: string): VerifiedJws | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  const [h = '', p = '', s = ''] = parts;
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null || typeof payload !== 'object' || payload === null)
    return undefined;
  if (header.alg !== 'EdDSA') return undefined;
  const ok = verifyEd25519(Buffer.from(publicKey, 'base64url'), Buffer.from(`${h}.${p}`), Buffer.from(s, 'base64url'));
  return ok ? { header, payload } : undefined;
}
