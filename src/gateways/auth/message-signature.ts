import { createHash } from 'node:crypto';
import { verifyEd25519 } from '../../crypto/ed25519-verify.js';
import { AppError } from '../../errors/index.js';

/**
 * HTTP Message Signatures (RFC 9421) as hearth requires them of suppliers: Ed25519 over
 * `"@method"`, `"@path"`, `"@query"` when there is a query, and, for every method but GET,
 * `"content-digest"` (RFC 9530, `sha-256=:<base64>:`), with a `created` time and the
 * supplier's DID as `keyid`.
 */
export interface SignedRequest {
  method: string;
  path: string;
  /** The query string without `?` (empty when none). */
  query: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export interface ParsedSignature {
  label: string;
  components: string[];
  params: Record<string, string | number>;
  /** The `@signature-params` value exactly as sent. */
  paramsText: string;
  signature: Buffer;
}

const fail = (why: string): AppError =>
  new AppError('SIGNATURE_INVALID', `the HTTP message signature is invalid: ${why}`);

/** Parses the first member of `Signature-Input` and the matching `Signature`. */
function parseSignature(headers: Readonly<Record<string, string>>): ParsedSignature {
  const input = headers['signature-input'];
  const sig = headers.signature;
  if (!input || !sig) {
    throw new AppError(
      'SIGNATURE_REQUIRED',
      'supplier requests need Signature-Input and Signature headers (RFC 9421, Ed25519)',
    );
  }
  const m = /^\s*([a-z][a-z0-9_-]*)=(\(([^)]*)\)((?:;[a-z][a-z0-9_-]*=(?:"[^"]*"|\d+))*))/.exec(input);
  if (!m) throw fail('Signature-Input is not of the form sig1=("@method" …);created=…;keyid="…"');
  const [, label = '', paramsText = '', list = '', paramList = ''] = m;
  const components = [...list.matchAll(/"([^"]+)"/g)].map((c) => c[1]!.toLowerCase());
  const odd = components.find((c) => !/^@?[a-z0-9-]{1,64}$/.test(c));
  if (odd !== undefined) throw fail(`"${odd.slice(0, 64)}" is not a component name`);
  const params: Record<string, string | number> = {};
  for (const p of paramList.matchAll(/;([a-z][a-z0-9_-]*)=(?:"([^"]*)"|(\d+))/g)) {
    params[p[1]!] = p[2] ?? Number(p[3]);
  }
  const sm = new RegExp(`(?:^|,)\\s*${label}=:([A-Za-z0-9+/=]+):`).exec(sig);
  if (!sm) throw fail(`no Signature member named ${label}`);
  return { label, components, params, paramsText, signature: Buffer.from(sm[1]!, 'base64') };
}

/** `sha-256=:<base64>:` of a body (RFC 9530). */
export function contentDigest(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** The signature base of RFC 9421 §2.5 for the covered components. */
function signatureBase(req: SignedRequest, components: readonly string[], paramsText: string): string {
  const lines = components.map((c) => {
    if (c === '@method') return `"@method": ${req.method.toUpperCase()}`;
    if (c === '@path') return `"@path": ${req.path}`;
    if (c === '@query') return `"@query": ?${req.query}`;
    // An own header only: "constructor" or "__proto__" must not reach Object.prototype.
    const value = Object.hasOwn(req.headers, c) ? req.headers[c] : undefined;
    if (typeof value !== 'string') throw fail(`the covered header ${c} is missing`);
    return `"${c}": ${value.trim()}`;
  });
  return [...lines, `"@signature-params": ${paramsText}`].join('\n');
}

export interface VerifyOptions {
  /** The DID the API key acts for; `keyid` must name it. */
  did: string;
  /** Raw Ed25519 public key of that DID (base64url). */
  publicKey: string;
  now: Date;
  /** How far `created` may be from now, seconds. */
  maxSkewSeconds: number;
}

/**
 * Checks everything but replay. Returns the parsed signature and its signature base: what was
 * signed identifies a request for replay checks, never the signature bytes (an Ed25519 signature
 * has other encodings a lax verifier would accept).
 */
export function verifyMessageSignature(req: SignedRequest, o: VerifyOptions): ParsedSignature & { base: string } {
  const s = parseSignature(req.headers);
  const needed = [
    '@method',
    '@path',
    ...(req.query ? ['@query'] : []),
    ...(req.body.length > 0 || req.method !== 'GET' ? ['content-digest'] : []),
  ];
  const missing = needed.filter((c) => !s.components.includes(c));
  if (missing.length) throw fail(`it must cover ${missing.join(', ')}`);
  if (s.params.alg !== undefined && s.params.alg !== 'ed25519') throw fail('alg must be ed25519');
  if (s.params.keyid !== o.did) throw fail(`keyid must be the supplier DID ${o.did}`);
  const created = s.params.created;
  if (typeof created !== 'number') throw fail('created is required');
  if (Math.abs(o.now.getTime() / 1000 - created) > o.maxSkewSeconds) {
    throw fail(`created must be within ${o.maxSkewSeconds / 60} minutes of the server time`);
  }
  if (s.components.includes('content-digest') && req.headers['content-digest'] !== contentDigest(req.body)) {
    throw fail('Content-Digest does not match the body');
  }
  const base = signatureBase(req, s.components, s.paramsText);
  if (!verifyEd25519(Buffer.from(o.publicKey, 'base64url'), Buffer.from(base), s.signature)) {
    throw fail('the signature does not verify with the supplier key');
  }
  return { ...s, base };
}
