import { createHash } from 'node:crypto';
import { invoke, type API } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createUcanAuthenticator,
  INVALID_INVOCATION_MESSAGE,
  redisNonceGuard,
} from '../../../../src/gateways/auth/ucan/index.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';

const ORACLE_CAP = { can: '*', with: 'ixo:oracle' } as const;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('UCAN single use across processes (Redis nonce guard)', () => {
  let env: Isolated;
  let oracle: API.Signer;
  let user: API.Signer;

  beforeAll(async () => {
    env = await isolated();
    oracle = await ed25519.generate();
    user = await ed25519.generate();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  /** A real client's token: a ucanto invocation, archived as CAR, base64-encoded. */
  async function mintInvocation(input: { nonce?: string; ttl?: number } = {}): Promise<string> {
    const token = await invoke({
      issuer: user,
      audience: oracle,
      capability: ORACLE_CAP,
      expiration: nowSeconds() + (input.ttl ?? 300),
      ...(input.nonce !== undefined && { nonce: input.nonce }),
    }).delegate();
    const archive = await token.archive();
    if (!archive.ok) throw archive.error;
    return Buffer.from(archive.ok).toString('base64');
  }

  /** One hearth process's authenticator; several share the one Redis. */
  const authenticator = () =>
    createUcanAuthenticator({
      oracleDid: oracle.did(),
      maxInvocationTtlSeconds: 900,
      seenNonce: redisNonceGuard(env.redis, env.prefix),
    });

  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' });

  it('stores a hashed key under the prefix with SET NX EX: true once, then false until it expires', async () => {
    const guard = redisNonceGuard(env.redis, env.prefix);
    const nonceKey = `${user.did()}:plain-text-nonce`;
    const key = `${env.prefix}:ucan:nonce:${createHash('sha256').update(nonceKey).digest('hex')}`;

    expect(await guard(nonceKey, 1)).toBe(true);
    expect(await env.redis.get(key)).toBe('1');
    const pttl = await env.redis.pttl(key);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(1_000);
    expect(await guard(nonceKey, 1)).toBe(false);
    // Nonces are client text: no key carries it in clear.
    expect(await env.keysMatching(`${env.prefix}:*plain-text-nonce*`)).toEqual([]);

    // Redis expires the key on its own clock (EX is whole seconds), which no test clock moves.
    expect(
      await eventually(
        () => env.redis.exists(key),
        (n) => n === 0,
        3_000,
        25,
      ),
    ).toBe(0);
    expect(await guard(nonceKey, 1)).toBe(true);
  });

  it('keeps prefixes apart', async () => {
    const nonceKey = `${user.did()}:shared`;
    expect(await redisNonceGuard(env.redis, env.prefix)(nonceKey, 60)).toBe(true);
    expect(await redisNonceGuard(env.redis, `${env.prefix}-other`)(nonceKey, 60)).toBe(true);
    await env.redis.del(`${env.prefix}-other:ucan:nonce:${createHash('sha256').update(nonceKey).digest('hex')}`);
  });

  it('refuses an invocation replayed to another process, with the TTL of the token', async () => {
    const token = await mintInvocation({ nonce: 'cross-process', ttl: 600 });
    expect(await authenticator().authenticate(headers(token))).toMatchObject({ ok: true, did: user.did() });
    expect(await authenticator().authenticate(headers(token))).toEqual({
      ok: false,
      status: 401,
      message: INVALID_INVOCATION_MESSAGE,
      reason: 'replayed',
    });
    const key = `${env.prefix}:ucan:nonce:${createHash('sha256').update(`${user.did()}:cross-process`).digest('hex')}`;
    const ttl = await env.redis.ttl(key);
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('lets exactly one of many concurrent uses of one invocation through (nonce-less: by signature)', async () => {
    const token = await mintInvocation({ ttl: 120 });
    const results = await Promise.all(Array.from({ length: 12 }, () => authenticator().authenticate(headers(token))));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'replayed')).toHaveLength(11);
  });
});
