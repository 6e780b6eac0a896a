import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { didKeyFromEd25519 } from '../../src/gateways/auth/did-key.js';
import { contentDigest } from '../../src/gateways/auth/message-signature.js';

export interface Signer {
  did: string;
  privateKey: KeyObject;
}

export function newSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { did: didKeyFromEd25519(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)), privateKey };
}

/** The headers of an RFC 9421 signature over method, path and (with a body) Content-Digest. */
export function signatureHeaders(
  s: Signer,
  method: string,
  path: string,
  body: string,
  created: number,
  overrides: { keyid?: string; components?: string[] } = {},
): Record<string, string> {
  const digest = contentDigest(Buffer.from(body));
  const [pathOnly = '', query = ''] = path.split('?');
  const components = overrides.components ?? [
    '@method',
    '@path',
    ...(query ? ['@query'] : []),
    ...(method === 'GET' ? [] : ['content-digest']),
  ];
  // Ed25519 is deterministic: the nonce keeps two identical requests in one second distinguishable.
  const nonce = randomBytes(12).toString('base64url');
  const params = `(${components.map((c) => `"${c}"`).join(' ')});created=${created};keyid="${overrides.keyid ?? s.did}";alg="ed25519";nonce="${nonce}"`;
  const lines = components.map((c) =>
    c === '@method'
      ? `"@method": ${method}`
      : c === '@path'
        ? `"@path": ${pathOnly}`
        : c === '@query'
          ? `"@query": ?${query}`
          : `"${c}": ${digest}`,
  );
  const base = [...lines, `"@signature-params": ${params}`].join('\n');
  const signature = sign(null, Buffer.from(base), s.privateKey).toString('base64');
  return { 'content-digest': digest, 'signature-input': `sig1=${params}`, signature: `sig1=:${signature}:` };
}

/** A compact JWS (EdDSA) of `payload`, as a supplier's delivery proof. */
export function compactJws(s: Signer, payload: Record<string, unknown>): string {
  const enc = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${enc({ alg: 'EdDSA', kid: s.did })}.${enc(payload)}`;
  return `${head}.${sign(null, Buffer.from(head), s.privateKey).toString('base64url')}`;
}
