import { createRequire } from 'node:module';
import { CAR, CBOR, Delegation, delegate, invoke, UCAN, type API } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import type * as UcansModule from 'ucans';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { base58Encode, ed25519FromDidKey } from '../../../../src/gateways/auth/did-key.js';
import {
  createUcanAuthenticator,
  INVALID_INVOCATION_MESSAGE,
  memoryNonceGuard,
  MISSING_UCAN_MESSAGE,
  type UcanAuthOptions,
  type UcanAuthResult,
} from '../../../../src/gateways/auth/ucan/index.js';

// ucans@0.10's ESM build does not load under Node (extension-less imports); its CJS build does.
const ucans = createRequire(import.meta.url)('ucans') as typeof UcansModule;

/** A pinned clock (unix seconds): every token below is minted relative to it. */
const T = 1_800_000_000;
const now = () => T * 1000;
const ORACLE_CAP = { can: '*', with: 'ixo:oracle' } as const;
const IXO_DID = 'did:ixo:entity:4f1c0a9e';

let oracle: API.Signer;
let user: API.Signer;
let other: API.Signer;
let ixoKey: API.Signer;

beforeAll(async () => {
  oracle = await ed25519.generate();
  user = await ed25519.generate();
  other = await ed25519.generate();
  ixoKey = await ed25519.generate();
});

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** What an ixo client does: `archive()` the token, then `Buffer#toString('base64')`. */
async function archived(token: API.Delegation): Promise<string> {
  const result = await token.archive();
  if (!result.ok) throw result.error;
  return b64(result.ok);
}

interface InvocationInput {
  issuer?: API.Signer;
  audience?: API.Principal;
  capability?: API.Capability;
  expiration?: number;
  notBefore?: number;
  nonce?: string;
  proofs?: API.Delegation[];
}

async function mintInvocation(input: InvocationInput = {}): Promise<string> {
  const token = await invoke({
    issuer: input.issuer ?? user,
    audience: input.audience ?? oracle,
    capability: input.capability ?? ORACLE_CAP,
    expiration: input.expiration ?? T + 300,
    ...(input.notBefore !== undefined && { notBefore: input.notBefore }),
    ...(input.nonce !== undefined && { nonce: input.nonce }),
    proofs: input.proofs ?? [],
  }).delegate();
  return archived(token);
}

interface DelegationInput {
  issuer?: API.Signer;
  audience?: API.Principal;
  expiration?: number;
  proofs?: API.Delegation[];
}

function mintDelegation(input: DelegationInput = {}): Promise<API.Delegation> {
  return delegate({
    issuer: input.issuer ?? user,
    audience: input.audience ?? oracle,
    capabilities: [ORACLE_CAP],
    expiration: input.expiration ?? T + 86_400,
    proofs: input.proofs ?? [],
  });
}

function setup(overrides: Partial<UcanAuthOptions> = {}) {
  const seenNonce = vi.fn(memoryNonceGuard(now));
  const auth = createUcanAuthenticator({
    oracleDid: oracle.did(),
    maxInvocationTtlSeconds: 900,
    seenNonce,
    now,
    ...overrides,
  });
  return { auth, seenNonce };
}

const invocationHeaders = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  'x-auth-type': 'ucan',
  ...extra,
});

function expectRejected(result: UcanAuthResult, message: string, reason: string) {
  expect(result).toEqual({ ok: false, status: 401, message, reason });
}

describe('UCAN authentication: which credential counts', () => {
  it('answers 401 with the spec message, verbatim, when nothing is sent', async () => {
    const { auth } = setup();
    expect(MISSING_UCAN_MESSAGE).toBe(
      'Missing UCAN authentication: provide Authorization: Bearer <invocation> with X-Auth-Type: ucan, or an x-ucan-delegation header',
    );
    expect(INVALID_INVOCATION_MESSAGE).toBe('Invalid UCAN invocation');
    expectRejected(await auth.authenticate({}), MISSING_UCAN_MESSAGE, 'missing');
    expectRejected(await auth.authenticate({ 'x-ucan-delegation': '' }), MISSING_UCAN_MESSAGE, 'missing');
  });

  it('ignores a bearer invocation without X-Auth-Type: ucan (exact value)', async () => {
    const { auth, seenNonce } = setup();
    const token = await mintInvocation();
    expectRejected(await auth.authenticate({ authorization: `Bearer ${token}` }), MISSING_UCAN_MESSAGE, 'missing');
    expectRejected(
      await auth.authenticate({ authorization: `Bearer ${token}`, 'x-auth-type': 'UCAN' }),
      MISSING_UCAN_MESSAGE,
      'missing',
    );
    expectRejected(
      await auth.authenticate({ authorization: `Bearer ${token}`, 'x-auth-type': 'jwt' }),
      MISSING_UCAN_MESSAGE,
      'missing',
    );
    expect(seenNonce).not.toHaveBeenCalled();
    // The ignored token was never used, so it still works once selected.
    expect(await auth.authenticate(invocationHeaders(token))).toMatchObject({ ok: true, did: user.did() });
  });

  it('falls back to the delegation when the bearer is not selected', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation({ issuer: other }));
    const result = await auth.authenticate({
      authorization: `Bearer ${await mintInvocation()}`,
      'x-ucan-delegation': delegation,
    });
    expect(result).toEqual({ ok: true, did: other.did(), via: 'delegation', expiration: T + 86_400 });
    // X-Auth-Type: ucan with no Authorization header at all: the delegation still decides.
    expect(await auth.authenticate({ 'x-auth-type': 'ucan', 'x-ucan-delegation': delegation })).toMatchObject({
      ok: true,
      via: 'delegation',
    });
  });

  it('lets a valid invocation decide over a delegation, and falls back to the delegation when the invocation is refused', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation({ issuer: other }));
    const valid = await mintInvocation();
    expect(await auth.authenticate(invocationHeaders(valid, { 'x-ucan-delegation': delegation }))).toEqual({
      ok: true,
      did: user.did(),
      via: 'invocation',
      expiration: T + 300,
    });
    // Spent, expired or unreadable, the invocation gives way: the delegation alone would be accepted.
    for (const refused of [valid, await mintInvocation({ expiration: T - 1 }), '%%%']) {
      expect(await auth.authenticate(invocationHeaders(refused, { 'x-ucan-delegation': delegation }))).toMatchObject({
        ok: true,
        did: other.did(),
        via: 'delegation',
      });
    }
    // Both refused: the invocation's refusal is the answer.
    expectRejected(
      await auth.authenticate(
        invocationHeaders(await mintInvocation({ expiration: T - 1 }), { 'x-ucan-delegation': 'garbage' }),
      ),
      INVALID_INVOCATION_MESSAGE,
      'expired',
    );
  });
});

describe('UCAN authentication: invocations', () => {
  it('accepts a user-signed invocation of {can:"*", with:"ixo:oracle"} and names the invoker', async () => {
    const { auth, seenNonce } = setup();
    const result = await auth.authenticate(invocationHeaders(await mintInvocation({ nonce: 'n-1' })));
    expect(result).toEqual({ ok: true, did: user.did(), via: 'invocation', expiration: T + 300 });
    expect(seenNonce).toHaveBeenCalledExactlyOnceWith(`${user.did()}:n-1`, 300);
  });

  it('accepts base64url as well as base64, and a lower-case "bearer"', async () => {
    const { auth } = setup();
    const url = Buffer.from(await mintInvocation(), 'base64').toString('base64url');
    expect(await auth.authenticate({ authorization: `bearer ${url}`, 'x-auth-type': 'ucan' })).toMatchObject({
      ok: true,
      did: user.did(),
    });
  });

  it('refuses malformed transport: not base64, not a CAR, a CAR of something else, too large', async () => {
    const { auth } = setup();
    const reject = async (token: string, reason: string) =>
      expectRejected(await auth.authenticate(invocationHeaders(token)), INVALID_INVOCATION_MESSAGE, reason);

    await reject('not base64 at all!', 'not-base64');
    await reject(b64(Buffer.from('just some bytes, no CAR here')), 'not-a-car');
    await reject(b64(CAR.encode({ roots: [], blocks: new Map() })), 'not-a-car');
    // A well-formed archive whose root is not a UCAN.
    const junk = await CBOR.write({ hello: 'world' });
    const variant = await CBOR.write({ 'ucan@0.9.1': junk.cid });
    await reject(b64(CAR.encode({ roots: [variant], blocks: new Map([[junk.cid.toString(), junk]]) })), 'not-a-ucan');
    await reject('A'.repeat(64 * 1024 + 1), 'too-large');
  });

  it('refuses a CAR whose block does not hash to the CID it is filed under', async () => {
    const { auth } = setup();
    const honest = await invoke({
      issuer: user,
      audience: oracle,
      capability: ORACLE_CAP,
      expiration: T + 300,
    }).delegate();
    const substitute = await invoke({
      issuer: other,
      audience: oracle,
      capability: ORACLE_CAP,
      expiration: T + 300,
    }).delegate();
    const variant = await CBOR.write({ 'ucan@0.9.1': honest.cid });
    const forged = CAR.encode({
      roots: [variant],
      blocks: new Map([[honest.cid.toString(), { cid: honest.cid, bytes: substitute.bytes }]]),
    });
    expectRejected(
      await auth.authenticate(invocationHeaders(b64(forged))),
      INVALID_INVOCATION_MESSAGE,
      'block-hash-mismatch',
    );
  });

  it('requires exp, in the future, at most 900 s ahead; and nbf not in the future', async () => {
    const { auth } = setup();
    const reject = async (input: InvocationInput, reason: string) =>
      expectRejected(
        await auth.authenticate(invocationHeaders(await mintInvocation(input))),
        INVALID_INVOCATION_MESSAGE,
        reason,
      );
    await reject({ expiration: T - 1 }, 'expired');
    await reject({ expiration: T }, 'expired');
    await reject({ expiration: Infinity }, 'no-expiration');
    await reject({ expiration: T + 901 }, 'ttl-too-long');
    await reject({ notBefore: T + 60 }, 'not-yet-valid');

    expect(await auth.authenticate(invocationHeaders(await mintInvocation({ expiration: T + 900 })))).toMatchObject({
      ok: true,
      expiration: T + 900,
    });
    expect(await auth.authenticate(invocationHeaders(await mintInvocation({ notBefore: T - 10 })))).toMatchObject({
      ok: true,
    });
  });

  it('requires the oracle as audience', async () => {
    const { auth } = setup();
    expectRejected(
      await auth.authenticate(invocationHeaders(await mintInvocation({ audience: other }))),
      INVALID_INVOCATION_MESSAGE,
      'wrong-audience',
    );
  });

  it('accepts exactly the oracle capability and nothing else', async () => {
    const { auth } = setup();
    for (const capability of [
      { can: '*', with: 'ixo:other' },
      { can: 'oracle/chat', with: 'ixo:oracle' },
      { can: '*', with: user.did() },
      { can: '*', with: 'ixo:oracle', nb: { scope: 'all' } },
    ] as API.Capability[]) {
      expectRejected(
        await auth.authenticate(invocationHeaders(await mintInvocation({ capability }))),
        INVALID_INVOCATION_MESSAGE,
        'wrong-capability',
      );
    }
    const two = await delegate({
      issuer: user,
      audience: oracle,
      capabilities: [ORACLE_CAP, { can: 'store/add', with: user.did() }],
      expiration: T + 300,
    });
    expectRejected(
      await auth.authenticate(invocationHeaders(await archived(two))),
      INVALID_INVOCATION_MESSAGE,
      'wrong-capability',
    );
  });

  it("refuses a forged signature: another key signing under the user's DID", async () => {
    const { auth, seenNonce } = setup();
    const forger = (await ed25519.generate()).withDID(user.did());
    expectRejected(
      await auth.authenticate(invocationHeaders(await mintInvocation({ issuer: forger, nonce: 'x' }))),
      INVALID_INVOCATION_MESSAGE,
      'bad-signature',
    );
    // A refused token must not use up its nonce (else a forger could burn a user's nonces).
    expect(seenNonce).not.toHaveBeenCalled();
  });

  it('accepts an invocation once per nonce', async () => {
    const { auth } = setup();
    const token = await mintInvocation({ nonce: 'once' });
    expect(await auth.authenticate(invocationHeaders(token))).toMatchObject({ ok: true });
    expectRejected(await auth.authenticate(invocationHeaders(token)), INVALID_INVOCATION_MESSAGE, 'replayed');
    // A different token (other exp, so other CID) reusing the nonce is a replay too.
    const sameNonce = await mintInvocation({ nonce: 'once', expiration: T + 400 });
    expectRejected(await auth.authenticate(invocationHeaders(sameNonce)), INVALID_INVOCATION_MESSAGE, 'replayed');
    // The nonce is per issuer.
    expect(
      await auth.authenticate(invocationHeaders(await mintInvocation({ issuer: other, nonce: 'once' }))),
    ).toMatchObject({
      ok: true,
      did: other.did(),
    });
  });

  it('makes an invocation without a nonce single-use too, while distinct ones pass', async () => {
    const { auth, seenNonce } = setup();
    const first = await mintInvocation();
    const second = await mintInvocation({ expiration: T + 301 });
    expect(await auth.authenticate(invocationHeaders(first))).toMatchObject({ ok: true });
    expect(await auth.authenticate(invocationHeaders(second))).toMatchObject({ ok: true });
    expectRejected(await auth.authenticate(invocationHeaders(first)), INVALID_INVOCATION_MESSAGE, 'replayed');
    expect(seenNonce.mock.calls[0]?.[0]).toMatch(new RegExp(`^${user.did()}:signed:[0-9a-f]{64}$`));
  });

  it('refuses a replay re-encoded under another CID (same signed UCAN in non-canonical JWT form)', async () => {
    const { auth } = setup();
    const token = await invoke({
      issuer: user,
      audience: oracle,
      capability: ORACLE_CAP,
      expiration: T + 300,
    }).delegate();
    expect(await auth.authenticate(invocationHeaders(await archived(token)))).toMatchObject({ ok: true });

    // dag-ucan verifies the signature over the canonical payload, so re-spaced JSON still verifies.
    const [header, payload, signature] = (UCAN.format(token.data) as string).split('.');
    const respaced = Buffer.from(JSON.stringify(JSON.parse(Buffer.from(payload!, 'base64url').toString()), null, 1));
    const view = UCAN.parse(`${header}.${respaced.toString('base64url')}.${signature}`);
    const reencoded = Delegation.create({ root: await UCAN.write(view) });
    expect(reencoded.cid.toString()).not.toBe(token.cid.toString());

    expectRejected(
      await auth.authenticate(invocationHeaders(await archived(reencoded))),
      INVALID_INVOCATION_MESSAGE,
      'replayed',
    );
  });

  it('verifies proofs an invocation carries: valid, expired, forged, merely linked', async () => {
    const { auth } = setup();
    const proof = await delegate({
      issuer: other,
      audience: user,
      capabilities: [ORACLE_CAP],
      expiration: T + 3600,
    });
    expect(await auth.authenticate(invocationHeaders(await mintInvocation({ proofs: [proof] })))).toMatchObject({
      ok: true,
      did: user.did(),
    });

    const expiredProof = await delegate({
      issuer: other,
      audience: user,
      capabilities: [ORACLE_CAP],
      expiration: T - 5,
    });
    expectRejected(
      await auth.authenticate(invocationHeaders(await mintInvocation({ proofs: [expiredProof] }))),
      INVALID_INVOCATION_MESSAGE,
      'expired',
    );

    const forgedProof = await delegate({
      issuer: (await ed25519.generate()).withDID(other.did()),
      audience: user,
      capabilities: [ORACLE_CAP],
      expiration: T + 3600,
    });
    expectRejected(
      await auth.authenticate(invocationHeaders(await mintInvocation({ proofs: [forgedProof] }))),
      INVALID_INVOCATION_MESSAGE,
      'proof-invalid',
    );

    const linkedOnly = await invoke({
      issuer: user,
      audience: oracle,
      capability: ORACLE_CAP,
      expiration: T + 300,
      proofs: [proof.cid],
    }).delegate();
    expectRejected(
      await auth.authenticate(invocationHeaders(await archived(linkedOnly))),
      INVALID_INVOCATION_MESSAGE,
      'proof-unavailable',
    );
  });
});

describe('UCAN authentication: did:ixo issuers', () => {
  const ixoSigner = () => ixoKey.withDID(IXO_DID);

  it('verifies a did:ixo invoker through the resolver (did:key, multibase, or bare key answers)', async () => {
    const multibase = ixoKey.did().slice('did:key:'.length);
    const bare = `z${base58Encode(ed25519FromDidKey(ixoKey.did())!)}`;
    for (const answer of [ixoKey.did(), multibase, bare]) {
      const resolveDid = vi.fn((did: string) => Promise.resolve(did === IXO_DID ? answer : undefined));
      const { auth } = setup({ resolveDid });
      const result = await auth.authenticate(invocationHeaders(await mintInvocation({ issuer: ixoSigner() })));
      expect(result).toEqual({ ok: true, did: IXO_DID, via: 'invocation', expiration: T + 300 });
      expect(resolveDid).toHaveBeenCalledWith(IXO_DID);
    }
  });

  it('refuses a did:ixo invoker that does not resolve, resolves to another key, or has no resolver', async () => {
    const token = async () => invocationHeaders(await mintInvocation({ issuer: ixoSigner() }));
    const cases: Array<[UcanAuthOptions['resolveDid'], string]> = [
      [() => Promise.resolve(undefined), 'did-unresolvable'],
      [() => Promise.reject(new Error('indexer down')), 'did-unresolvable'],
      [() => Promise.resolve('not a key'), 'did-unresolvable'],
      [() => Promise.resolve(other.did()), 'bad-signature'],
      [undefined, 'unsupported-did'],
    ];
    for (const [resolveDid, reason] of cases) {
      const { auth } = setup(resolveDid ? { resolveDid } : {});
      expectRejected(await auth.authenticate(await token()), INVALID_INVOCATION_MESSAGE, reason);
    }
  });

  it('authenticates a did:ixo delegation as its issuer', async () => {
    const { auth } = setup({ resolveDid: (did) => Promise.resolve(did === IXO_DID ? ixoKey.did() : undefined) });
    const delegation = await archived(await mintDelegation({ issuer: ixoSigner() }));
    expect(await auth.authenticate({ 'x-ucan-delegation': delegation })).toMatchObject({
      ok: true,
      did: IXO_DID,
      via: 'delegation',
    });
  });
});

describe('UCAN authentication: delegations (x-ucan-delegation alone)', () => {
  it('authenticates as the issuer of a user→oracle delegation, reusable', async () => {
    const { auth, seenNonce } = setup();
    const delegation = await archived(await mintDelegation());
    const expected = { ok: true, did: user.did(), via: 'delegation', expiration: T + 86_400 };
    expect(await auth.authenticate({ 'x-ucan-delegation': delegation })).toEqual(expected);
    expect(await auth.authenticate({ 'x-ucan-delegation': delegation })).toEqual(expected);
    expect(seenNonce).not.toHaveBeenCalled();
  });

  it('accepts a delegation without exp and reports no expiration', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation({ expiration: Infinity }));
    expect(await auth.authenticate({ 'x-ucan-delegation': delegation })).toEqual({
      ok: true,
      did: user.did(),
      via: 'delegation',
    });
  });

  it('answers an invalid delegation with the "Missing UCAN authentication" message and a specific reason', async () => {
    const { auth } = setup();
    const reject = async (value: string, reason: string) =>
      expectRejected(await auth.authenticate({ 'x-ucan-delegation': value }), MISSING_UCAN_MESSAGE, reason);

    await reject(await archived(await mintDelegation({ expiration: T - 1 })), 'expired');
    await reject(await archived(await mintDelegation({ audience: other })), 'wrong-audience');
    await reject(
      await archived(await mintDelegation({ issuer: (await ed25519.generate()).withDID(user.did()) })),
      'bad-signature',
    );
    await reject('@@@', 'not-base64');
    await reject(b64(Buffer.from('no car')), 'not-a-car');
    await reject('A'.repeat(70_000), 'too-large');
  });

  it('checks the whole proof chain: an expired link anywhere refuses the delegation', async () => {
    const { auth } = setup();
    const root = await ed25519.generate();
    const grant = (expiration: number) =>
      delegate({ issuer: root, audience: user, capabilities: [ORACLE_CAP], expiration });
    const good = await archived(await mintDelegation({ proofs: [await grant(T + 3600)] }));
    expect(await auth.authenticate({ 'x-ucan-delegation': good })).toMatchObject({ ok: true, did: user.did() });

    const stale = await archived(await mintDelegation({ proofs: [await grant(T - 1)] }));
    expectRejected(await auth.authenticate({ 'x-ucan-delegation': stale }), MISSING_UCAN_MESSAGE, 'expired');
  });
});

describe('UCAN authentication: JWT UCANs (ucans library)', () => {
  const oracleCapability = { with: { scheme: 'ixo', hierPart: 'oracle' }, can: '*' } as const;

  interface JwtInput {
    issuer?: UcansModule.EdKeypair;
    audience?: string;
    expiration?: number;
    capabilities?: UcansModule.Capability[];
    addNonce?: boolean;
    proofs?: string[];
  }

  async function mintJwt(issuer: UcansModule.EdKeypair, input: JwtInput = {}): Promise<string> {
    const token = await ucans.build({
      issuer,
      audience: input.audience ?? oracle.did(),
      expiration: input.expiration ?? T + 300,
      capabilities: input.capabilities ?? [oracleCapability],
      addNonce: input.addNonce ?? true,
      proofs: input.proofs ?? [],
    });
    return ucans.encode(token);
  }

  it('accepts a JWT UCAN as an invocation, once', async () => {
    const { auth, seenNonce } = setup();
    const keypair = await ucans.EdKeypair.create();
    const jwt = await mintJwt(keypair);
    expect(await auth.authenticate(invocationHeaders(jwt))).toEqual({
      ok: true,
      did: keypair.did(),
      via: 'jwt',
      expiration: T + 300,
    });
    expect(seenNonce.mock.calls[0]?.[0]).toMatch(new RegExp(`^${keypair.did()}:[A-Za-z0-9]+$`));
    expectRejected(await auth.authenticate(invocationHeaders(jwt)), INVALID_INVOCATION_MESSAGE, 'replayed');

    // Without a nonce, the signature makes it single-use.
    const plain = await mintJwt(keypair, { addNonce: false, expiration: T + 200 });
    expect(await auth.authenticate(invocationHeaders(plain))).toMatchObject({ ok: true, via: 'jwt' });
    expectRejected(await auth.authenticate(invocationHeaders(plain)), INVALID_INVOCATION_MESSAGE, 'replayed');
  });

  it('also accepts the encoded capability form and a JWT over a socket handshake', async () => {
    const { auth } = setup();
    const keypair = await ucans.EdKeypair.create();
    const jwt = await mintJwt(keypair, {
      capabilities: [ucans.capability.parse({ with: 'ixo:oracle', can: '*' })],
    });
    expect(await auth.authenticateHandshake({ invocation: jwt })).toMatchObject({ ok: true, did: keypair.did() });
  });

  it('refuses wrong audience, capability, lifetime, signature and proofs', async () => {
    const { auth } = setup();
    const keypair = await ucans.EdKeypair.create();
    const reject = async (jwt: string, reason: string) =>
      expectRejected(await auth.authenticate(invocationHeaders(jwt)), INVALID_INVOCATION_MESSAGE, reason);

    await reject(await mintJwt(keypair, { audience: other.did() }), 'wrong-audience');
    await reject(
      await mintJwt(keypair, { capabilities: [{ with: { scheme: 'ixo', hierPart: 'other' }, can: '*' }] }),
      'wrong-capability',
    );
    await reject(await mintJwt(keypair, { expiration: T + 901 }), 'ttl-too-long');
    await reject(await mintJwt(keypair, { expiration: T - 1 }), 'expired');

    // Signed by another key while claiming this keypair's DID.
    const forger = await ucans.EdKeypair.create();
    const payload = ucans.buildPayload({
      issuer: keypair.did(),
      audience: oracle.did(),
      expiration: T + 300,
      capabilities: [oracleCapability],
      addNonce: true,
    });
    await reject(ucans.encode(await ucans.sign(payload, 'ed25519', (data) => forger.sign(data))), 'bad-signature');

    const root = await ucans.EdKeypair.create();
    const liveProof = await mintJwt(root, { audience: keypair.did(), expiration: T + 3600 });
    expect(await auth.authenticate(invocationHeaders(await mintJwt(keypair, { proofs: [liveProof] })))).toMatchObject({
      ok: true,
    });
    const staleProof = await mintJwt(root, { audience: keypair.did(), expiration: T - 1 });
    await reject(await mintJwt(keypair, { proofs: [staleProof] }), 'expired');

    await reject('eyJhbGciOiJFZERTQSJ9.eyJub3QiOiJhIHVjYW4ifQ.c2ln', 'malformed-jwt');
  });
});

describe('UCAN authentication: socket.io handshakes', () => {
  it('uses auth.invocation first and auth.ucanDelegation as the fallback', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation({ issuer: other }));
    expect(await auth.authenticateHandshake({ invocation: await mintInvocation() })).toMatchObject({
      ok: true,
      did: user.did(),
      via: 'invocation',
    });
    // A distinct token: Ed25519 is deterministic, so an identical mint would be a replay of the first.
    const prefixed = `Bearer ${await mintInvocation({ expiration: T + 301 })}`;
    expect(await auth.authenticateHandshake({ invocation: prefixed })).toMatchObject({
      ok: true,
      via: 'invocation',
    });
    expect(await auth.authenticateHandshake({ ucanDelegation: delegation })).toMatchObject({
      ok: true,
      did: other.did(),
      via: 'delegation',
    });
    expect(await auth.authenticateHandshake({ invocation: '', ucanDelegation: delegation })).toMatchObject({
      ok: true,
      via: 'delegation',
    });
  });

  it('falls back to the delegation when the invocation is refused (a reconnect sends it again), and refuses non-string or absent credentials', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation());
    const expired = await mintInvocation({ expiration: T - 1 });
    expect(await auth.authenticateHandshake({ invocation: expired, ucanDelegation: delegation })).toMatchObject({
      ok: true,
      did: user.did(),
      via: 'delegation',
    });
    expectRejected(
      await auth.authenticateHandshake({ invocation: expired, ucanDelegation: 'garbage' }),
      INVALID_INVOCATION_MESSAGE,
      'expired',
    );
    expectRejected(await auth.authenticateHandshake({ invocation: 42 }), INVALID_INVOCATION_MESSAGE, 'not-a-string');
    expectRejected(
      await auth.authenticateHandshake({ ucanDelegation: { car: 'x' } }),
      MISSING_UCAN_MESSAGE,
      'not-a-string',
    );
    expectRejected(await auth.authenticateHandshake({}), MISSING_UCAN_MESSAGE, 'missing');
  });
});

describe('checkDelegationForStore (POST /delegation)', () => {
  it('accepts the caller’s own delegation to the oracle and reports its expiration', async () => {
    const { auth } = setup();
    const delegation = await archived(await mintDelegation());
    expect(await auth.checkDelegationForStore(delegation, user.did())).toEqual({
      ok: true,
      id: expect.stringMatching(/^signed:[0-9a-f]{64}$/),
      expiration: T + 86_400,
    });
    const forever = await archived(await mintDelegation({ expiration: Infinity }));
    expect(await auth.checkDelegationForStore(forever, user.did())).toEqual({
      ok: true,
      id: expect.stringMatching(/^signed:/),
    });
  });

  it('refuses a delegation from another issuer, expired, to another audience, forged, or garbage', async () => {
    const { auth } = setup();
    const check = (value: string) => auth.checkDelegationForStore(value, user.did());
    expect(await check(await archived(await mintDelegation({ issuer: other })))).toEqual({
      ok: false,
      message: 'Invalid UCAN delegation: the delegation was not issued by the caller',
    });
    expect(await check(await archived(await mintDelegation({ expiration: T - 1 })))).toEqual({
      ok: false,
      message: 'Invalid UCAN delegation: the delegation or one of its proofs has expired',
    });
    expect(await check(await archived(await mintDelegation({ audience: other })))).toEqual({
      ok: false,
      message: "Invalid UCAN delegation: the delegation's audience is not this oracle",
    });
    expect(
      await check(await archived(await mintDelegation({ issuer: (await ed25519.generate()).withDID(user.did()) }))),
    ).toEqual({ ok: false, message: 'Invalid UCAN delegation: a signature does not verify' });
    expect(await check('###')).toEqual({ ok: false, message: 'Invalid UCAN delegation: the delegation is not base64' });
  });
});

describe('UCAN authentication never throws on garbage', () => {
  it('answers 401 for every malformed value, over headers and handshakes', async () => {
    const { auth } = setup();
    const garbage: unknown[] = [
      ' ',
      '=',
      'AAAA',
      '////',
      'a.b.c',
      'eyJ.eyJ.',
      '...',
      'Bearer',
      '\u0000\u0001',
      b64(new Uint8Array(4096).map((_, i) => (i * 31) % 256)),
      b64(Uint8Array.from([0x3a, 0xa2, 0x65, 0x72, 0x6f, 0x6f, 0x74, 0x73])),
      'x'.repeat(1 << 20),
      123,
      null,
      {},
      [],
    ];
    for (const value of garbage) {
      if (typeof value === 'string') {
        const viaBearer = await auth.authenticate({ authorization: `Bearer ${value}`, 'x-auth-type': 'ucan' });
        expect(viaBearer.ok).toBe(false);
        const viaDelegation = await auth.authenticate({ 'x-ucan-delegation': value });
        expect(viaDelegation).toMatchObject({ ok: false, status: 401, message: MISSING_UCAN_MESSAGE });
        expect(await auth.checkDelegationForStore(value, user.did())).toMatchObject({ ok: false });
      }
      expect(await auth.authenticateHandshake({ invocation: value })).toMatchObject({ ok: false, status: 401 });
      expect(await auth.authenticateHandshake({ ucanDelegation: value })).toMatchObject({ ok: false, status: 401 });
    }
  });
});
