/** The authenticator's public contract (re-exported by index.ts). */
export interface UcanAuthOptions {
  /** ORACLE_DID: the audience every token must name. */
  oracleDid: string;
  /** The longest an invocation may live from now (the wire reference says 900 s). */
  maxInvocationTtlSeconds: number;
  /** did:ixo (or any non-did:key DID) → `did:key:…` or a multibase (`z…`) Ed25519 public key. */
  resolveDid?: (did: string) => Promise<string | undefined>;
  /** True the first time `nonceKey` is seen (SET NX EX in Redis); false on a replay. */
  seenNonce: (nonceKey: string, ttlSeconds: number) => Promise<boolean>;
  /** Clock in milliseconds; tests pin it. */
  now?: () => number;
  /** Whether the delegation with this id (see AcceptedDelegation.id) was revoked by its issuer (none when absent). */
  isRevoked?: (cid: string) => Promise<boolean>;
}

type UcanAuthVia = 'invocation' | 'delegation' | 'jwt';

export type UcanAuthResult =
  | { ok: true; did: string; via: UcanAuthVia; expiration?: number }
  | { ok: false; status: 401; message: string; reason: string };

type DelegationStoreCheck = { ok: true; id: string; expiration?: number } | { ok: false; message: string };

export interface UcanAuthenticator {
  /** headers: lower-case names. */
  authenticate(headers: Record<string, string | undefined>): Promise<UcanAuthResult>;
  /** For socket.io handshakes: `auth.invocation` (primary) or `auth.ucanDelegation` (fallback). */
  authenticateHandshake(auth: { invocation?: unknown; ucanDelegation?: unknown }): Promise<UcanAuthResult>;
  /** Validates a delegation CAR before it is stored (POST /delegation): audience is the oracle, issuer is `callerDid`, not expired, signature valid. */
  checkDelegationForStore(rawBase64Car: string, callerDid: string): Promise<DelegationStoreCheck>;
}
