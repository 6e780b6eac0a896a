// Also used by the tests (test/support/ucan-tokens.ts).
import { delegate, invoke, type API } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';

/** Mints what an ixo oracle client sends: ucanto invocations archived as CAR, base64-encoded. */
export async function ucanUser(oracleDid: string) {
  const user = await ed25519.generate();
  const oracle = { did: () => oracleDid as `did:${string}:${string}` } as API.Principal;
  let n = 0;
  return {
    did: user.did(),
    /** A fresh single-use invocation (a new nonce each time), valid for `ttl` seconds. */
    async invocation(ttl = 300): Promise<string> {
      const token = await invoke({
        issuer: user,
        audience: oracle,
        capability: { can: '*', with: 'ixo:oracle' },
        expiration: Math.floor(Date.now() / 1000) + ttl,
        nonce: `n${++n}-${Math.random().toString(36).slice(2)}`,
      }).delegate();
      const archived = await token.archive();
      if (!archived.ok) throw archived.error;
      return Buffer.from(archived.ok).toString('base64');
    },
    /** A delegation to the oracle (or to `audienceDid`), archived and base64-encoded. */
    async delegation(ttl = 3600, audienceDid = oracleDid): Promise<string> {
      const token = await delegate({
        issuer: user,
        audience: { did: () => audienceDid as `did:${string}:${string}` },
        capabilities: [{ can: '*', with: 'ixo:oracle' }],
        expiration: Math.floor(Date.now() / 1000) + ttl,
      });
      const archived = await token.archive();
      if (!archived.ok) throw archived.error;
      return Buffer.from(archived.ok).toString('base64');
    },
    /** The headers of a protected oracle request. */
    async headers(): Promise<Record<string, string>> {
      return { authorization: `Bearer ${await this.invocation()}`, 'x-auth-type': 'ucan' };
    },
  };
}

export async function oracleIdentity(): Promise<string> {
  return (await ed25519.generate()).did();
}
