import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { Delegation, invoke, UCAN, type API } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import type * as UcansModule from 'ucans';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasCanonicalScalar, verifyEd25519 } from '../../../../src/crypto/ed25519-verify.js';
import { verifyCompactJws } from '../../../../src/gateways/auth/jws.js';
import { contentDigest, verifyMessageSignature } from '../../../../src/gateways/auth/message-signature.js';
import {
  createUcanAuthenticator,
  memoryNonceGuard,
  type UcanAuthResult,
} from '../../../../src/gateways/auth/ucan/index.js';

/**
 * An Ed25519 signature is R ‖ S with S little-endian; a verifier that skips RFC 8032's S < L
 * check accepts S + k·L too, for every k that keeps it within 32 bytes (k = 1…15). ECDSA has its
 * own second form, (r, n − s), which the replay key (what was signed) covers. Neither may let a signed token or request be used twice.
 */
const ucans = createRequire(import.meta.url)('ucans') as typeof UcansModule;

const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const T = 1_800_000_000;
const littleEndian = (bytes: Uint8Array): bigint => {
  let x = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[i] as number);
  return x;
};
const toLittleEndian = (x: bigint): Buffer => {
  const out = Buffer.alloc(32);
  for (let i = 0; i < 32; i++, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
};

/** Every S + k·L form of an Ed25519 signature that still fits in 32 bytes. */
function malleated(signature: Uint8Array): Buffer[] {
  const s = littleEndian(signature.subarray(32));
  const forms: Buffer[] = [];
  for (let k = 1n; s + k * L < 2n ** 256n; k++) {
    forms.push(Buffer.concat([signature.subarray(0, 32), toLittleEndian(s + k * L)]));
  }
  return forms;
}

function rawKey(publicKey: KeyObject): Buffer {
  return Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
}

let oracleDid: string;
beforeAll(async () => {
  oracleDid = (await ed25519.generate()).did();
});

function authenticator() {
  return createUcanAuthenticator({
    oracleDid,
    maxInvocationTtlSeconds: 900,
    seenNonce: memoryNonceGuard(() => T * 1000),
    now: () => T * 1000,
  });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' });
const reason = (r: UcanAuthResult) => (r.ok ? 'accepted' : r.reason);

describe('Ed25519: only the canonical S verifies', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.from('hearth');
  const signature = sign(null, message, privateKey);

  it('accepts the signature as made and refuses each of its S + k·L forms', () => {
    const forms = malleated(signature);
    expect(forms.length).toBeGreaterThanOrEqual(15);
    expect(verifyEd25519(rawKey(publicKey), message, signature)).toBe(true);
    for (const form of forms) {
      expect(hasCanonicalScalar(form)).toBe(false);
      expect(verifyEd25519(rawKey(publicKey), message, form)).toBe(false);
    }
  });

  it('refuses S = L exactly, and signatures or keys of the wrong length, without throwing', () => {
    const atL = Buffer.concat([signature.subarray(0, 32), toLittleEndian(L)]);
    expect(hasCanonicalScalar(atL)).toBe(false);
    expect(hasCanonicalScalar(Buffer.concat([signature.subarray(0, 32), toLittleEndian(L - 1n)]))).toBe(true);
    expect(verifyEd25519(rawKey(publicKey), message, signature.subarray(0, 63))).toBe(false);
    expect(verifyEd25519(rawKey(publicKey).subarray(1), message, signature)).toBe(false);
  });
});

describe('JWT UCANs: a nonce-less token is single-use whatever its signature looks like', () => {
  let keypair: UcansModule.EdKeypair;
  beforeAll(async () => {
    keypair = await ucans.EdKeypair.create();
  });

  async function mint(issuer: UcansModule.EdKeypair) {
    const token = await ucans.build({
      issuer,
      audience: oracleDid,
      expiration: T + 300,
      capabilities: [{ with: { scheme: 'ixo', hierPart: 'oracle' }, can: '*' }],
      addNonce: false,
    });
    return ucans.encode(token);
  }

  it('refuses every S + k·L re-signing of an Ed25519 JWT accepted once', async () => {
    const auth = authenticator();
    const jwt = await mint(keypair);
    expect(await auth.authenticate(bearer(jwt))).toMatchObject({ ok: true, did: keypair.did() });
    expect(reason(await auth.authenticate(bearer(jwt)))).toBe('replayed');
    const [signed, signature = ''] = [jwt.slice(0, jwt.lastIndexOf('.')), jwt.split('.')[2]];
    const forms = malleated(Buffer.from(signature, 'base64url'));
    expect(forms.length).toBeGreaterThanOrEqual(15);
    for (const form of forms) {
      expect(reason(await auth.authenticate(bearer(`${signed}.${form.toString('base64url')}`)))).not.toBe('accepted');
    }
  });

  it('refuses a signature spelled with stray base64url characters', async () => {
    const auth = authenticator();
    const jwt = await mint(keypair);
    expect(reason(await auth.authenticate(bearer(`${jwt}=`)))).not.toBe('accepted');
    expect(await auth.authenticate(bearer(jwt))).toMatchObject({ ok: true });
  });
});

describe('ucanto invocations: a malleated signature does not verify', () => {
  it('refuses the S + L form of an accepted invocation', async () => {
    const auth = authenticator();
    const user = await ed25519.generate();
    const token = await invoke({
      issuer: user,
      audience: { did: () => oracleDid as `did:key:${string}` },
      capability: { can: '*', with: 'ixo:oracle' },
      expiration: T + 300,
    }).delegate();
    const archive = async (t: API.Delegation) => {
      const out = await t.archive();
      if (!out.ok) throw out.error;
      return Buffer.from(out.ok).toString('base64');
    };
    expect(await auth.authenticate(bearer(await archive(token)))).toMatchObject({ ok: true });
    // The same UCAN with the signature's S + L, through its JWT form.
    const jwt = UCAN.format(token.data) as string;
    const forged = malleated(token.signature.raw)[0]!.toString('base64url');
    const view = UCAN.parse(`${jwt.slice(0, jwt.lastIndexOf('.'))}.${forged}`);
    const reencoded = Delegation.create({ root: await UCAN.write(view) });
    expect(reason(await auth.authenticate(bearer(await archive(reencoded))))).toBe('bad-signature');
  });
});

describe('JWS claim proofs and RFC 9421 supplier signatures', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const key = rawKey(publicKey).toString('base64url');

  it('refuses a claim proof whose signature is an S + k·L form', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ redemptionId: 'r1' })).toString('base64url');
    const signature = sign(null, Buffer.from(`${header}.${payload}`), privateKey);
    expect(verifyCompactJws(`${header}.${payload}.${signature.toString('base64url')}`, key)).toBeDefined();
    for (const form of malleated(signature)) {
      expect(verifyCompactJws(`${header}.${payload}.${form.toString('base64url')}`, key)).toBeUndefined();
    }
  });

  it('refuses an HTTP message signature whose S is not canonical, and keys replays on the signature base', () => {
    const did = 'did:key:supplier';
    const body = Buffer.from('{"amount":1}');
    const params = `("@method" "@path" "content-digest");created=${T};keyid="${did}"`;
    const headers = { 'content-digest': contentDigest(body), 'signature-input': `sig1=${params}` };
    const base = `"@method": POST\n"@path": /v1/redemptions\n"content-digest": ${headers['content-digest']}\n"@signature-params": ${params}`;
    const signature = sign(null, Buffer.from(base), privateKey);
    const request = (sig: Buffer) => ({
      method: 'POST',
      path: '/v1/redemptions',
      query: '',
      body,
      headers: { ...headers, signature: `sig1=:${sig.toString('base64')}:` },
    });
    const options = { did, publicKey: key, now: new Date(T * 1000), maxSkewSeconds: 300 };
    const parsed = verifyMessageSignature(request(signature), options);
    expect(createHash('sha256').update(parsed.base).digest('hex')).toBe(
      createHash('sha256').update(base).digest('hex'),
    );
    for (const form of malleated(signature)) {
      expect(() => verifyMessageSignature(request(form), options)).toThrow(/does not verify/);
    }
  });
});
