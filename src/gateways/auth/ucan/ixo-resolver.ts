import { TtlCache } from '../../../ttl-cache.js';

/**
 * did:ixo → its Ed25519 key, read from the ledger network's DID documents (the ixo chain's REST
 * API serves them at `/ixo/iid/v1beta1/{did}`). The answer is kept 5 minutes; a failure is not
 * kept, so a DID registered a moment ago resolves on the next request.
 */
const TTL_MS = 5 * 60 * 1000;
const TIMEOUT_MS = 3_000;

interface VerificationMethod {
  publicKeyMultibase?: string;
  publicKeyBase58?: string;
}

interface DidDocument {
  verificationMethod?: unknown;
  iidDocument?: DidDocument;
  didDocument?: DidDocument;
}

function keysOf(doc: DidDocument | null): VerificationMethod[] {
  // The ixo REST API wraps the document in `iidDocument`; a plain resolver answers it bare.
  const inner = doc?.iidDocument ?? doc?.didDocument ?? doc;
  return Array.isArray(inner?.verificationMethod) ? (inner.verificationMethod as VerificationMethod[]) : [];
}

/** A resolver for `createUcanAuthenticator`'s `resolveDid`; `template` has `{did}` where the DID goes. */
export function ixoDidResolver(template: string, fetcher: typeof fetch = fetch, now: () => number = Date.now) {
  const cache = new TtlCache<string, string>({ ttlMs: TTL_MS, maxEntries: 10_000, now });
  return async (did: string): Promise<string | undefined> => {
    if (!did.startsWith('did:ixo:')) return undefined;
    const hit = cache.get(did);
    if (hit !== undefined) return hit;
    const res = await fetcher(template.replace('{did}', encodeURIComponent(did)), {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (!res.ok) return undefined;
    const method = keysOf((await res.json()) as DidDocument | null).find(
      (m) => m.publicKeyMultibase ?? m.publicKeyBase58,
    );
    // A bare base58 key is given the multibase prefix the verifier expects.
    const key = method?.publicKeyMultibase ?? (method?.publicKeyBase58 ? `z${method.publicKeyBase58}` : undefined);
    if (key) {
      cache.set(did, key);
    }
    return key;
  };
}
