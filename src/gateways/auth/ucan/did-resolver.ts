/**
 * Issuer DID → a ucanto verifier for its key. `did:key` carries its key; `did:ixo` (or any other
 * method) goes through the configured resolver, whose answer is wrapped so the verifier still
 * reports the original DID (dag-ucan's signature check compares the UCAN's `iss` with it).
 */
import { base58btc, type API } from '@ucanto/core';
import { ed25519, Verifier } from '@ucanto/principal';
import { failure, type UcanFailure } from './errors.js';
import type { UcanAuthOptions } from './types.js';

type DidVerifierResult = { ok: true; verifier: API.Verifier } | UcanFailure;
export type ResolveVerifier = (did: string) => Promise<DidVerifierResult>;

/** multicodec varint prefix of an Ed25519 public key (0xed). */
const ED25519_PUB_PREFIX = [0xed, 0x01];

function parseDidKey(did: string): API.Verifier | undefined {
  try {
    return Verifier.parse(did as API.DID);
  } catch {
    return undefined;
  }
}

/** `did:key:z…`, a multicodec-tagged multibase key `z6Mk…`, or a bare 32-byte base58btc key. */
function verifierFromKey(key: string): API.Verifier | undefined {
  if (key.startsWith('did:key:')) return parseDidKey(key);
  if (!key.startsWith('z')) return undefined;
  const tagged = parseDidKey(`did:key:${key}`);
  if (tagged) return tagged;
  try {
    const raw = base58btc.decode(key);
    if (raw.length !== 32) return undefined;
    return ed25519.Verifier.decode(Uint8Array.from([...ED25519_PUB_PREFIX, ...raw]));
  } catch {
    return undefined;
  }
}

export function createVerifierResolver(resolveDid: UcanAuthOptions['resolveDid']): ResolveVerifier {
  return async (did) => {
    if (!/^did:[a-z0-9]+:\S+$/.test(did)) return failure('unsupported-did');
    if (did.startsWith('did:key:')) {
      const verifier = parseDidKey(did);
      return verifier ? { ok: true, verifier } : failure('unsupported-did');
    }
    if (!resolveDid) return failure('unsupported-did');
    let key: string | undefined;
    try {
      key = await resolveDid(did);
    } catch {
      // The resolver is the host's (an indexer call, a cache): whatever it throws, the DID is not
      // verifiable right now, which for the caller is a 401 like any unresolvable DID.
      key = undefined;
    }
    const verifier = key === undefined ? undefined : verifierFromKey(key);
    return verifier ? { ok: true, verifier: verifier.withDID(did as API.DID) } : failure('did-unresolvable');
  };
}
