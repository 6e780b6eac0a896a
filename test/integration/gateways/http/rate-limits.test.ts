import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

/** Request limits held in Redis: per API key, per DID, and failed authentications per address. */
interface Answer {
  status: number;
  retryAfter: string | null;
  body: { error?: { code: string; message: string; details?: { limit: string; retryAfterSeconds: number } } };
}

async function answer(res: Response): Promise<Answer> {
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Answer['body'],
  };
}

const listVouchers = (base: string, key: string) =>
  fetch(`${base}/v1/vouchers?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(answer);

describe('per API key and per DID, across gateways', () => {
  let env: Isolated;
  let a: Hearth;
  let b: Hearth;
  let oracleDid = '';
  const limits = { RATE_LIMIT_API_KEY_PER_MINUTE: '5', RATE_LIMIT_DID_PER_MINUTE: '3' };

  beforeAll(async () => {
    env = await isolated();
    oracleDid = await oracleIdentity();
    const config = { ...limits, HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid };
    a = await startHearth(env.config(config), env.log);
    b = await startHearth(env.config({ ...config, ROLE: 'gateway' }), env.log, { migrate: false });
  });

  afterAll(async () => {
    await b?.close();
    await a.close();
    await env.cleanup();
  });

  async function newKey(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${a.port}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'implementer' }),
    });
    return ((await res.json()) as { key: string }).key;
  }

  it('answers a key over its allowance 429 RATE_LIMITED with Retry-After, counted on every gateway', async () => {
    const [key, other] = [await newKey(), await newKey()];
    const baseA = `http://127.0.0.1:${a.port}`;
    const baseB = `http://127.0.0.1:${b.port}`;
    // Five a minute, as many at once: three through A, two through B.
    for (const base of [baseA, baseA, baseA, baseB, baseB]) expect((await listVouchers(base, key)).status).toBe(200);
    for (const base of [baseA, baseB]) {
      const refused = await listVouchers(base, key);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMITED',
        details: { limit: 'api-key', retryAfterSeconds: expect.any(Number) as number },
      });
      // A fifth of the minute budget comes back every 12 s: Retry-After says so.
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(12);
      expect(refused.retryAfter).toBe(String(refused.body.error?.details?.retryAfterSeconds));
    }
    // Another key has its own allowance.
    expect((await listVouchers(baseB, other)).status).toBe(200);
  });

  it('answers a DID over its allowance on the oracle 429, whichever token it presents', async () => {
    const alice = await ucanUser(oracleDid);
    const bob = await ucanUser(oracleDid);
    const sessions = async (user: typeof alice, port: number) =>
      answer(await fetch(`http://127.0.0.1:${port}/sessions`, { headers: await user.headers() }));
    for (const port of [a.port, b.port, a.port]) expect((await sessions(alice, port)).status).toBe(200);
    const refused = await sessions(alice, b.port);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'did' } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await sessions(bob, a.port)).status).toBe(200);
  });
});

describe('failed authentications per client address', () => {
  let env: Isolated;
  let hearth: Hearth;
  let base = '';
  let oracleDid = '';

  beforeAll(async () => {
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '4',
        HEARTH_ADMIN_KEY: adminKey,
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
      }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('refuses an address that failed too often, before checking its key or token, good ones too', async () => {
    // Successes do not count.
    for (let i = 0; i < 6; i++) expect((await listVouchers(base, adminKey)).status).toBe(200);
    // Four failures a minute: API keys and UCANs alike.
    for (const key of ['hk_0000000000000000_guess', 'not-a-key', 'hk_1111111111111111_guess']) {
      expect((await listVouchers(base, key)).status).toBe(401);
    }
    const forged = await fetch(`${base}/sessions`, {
      headers: { authorization: 'Bearer bm90IGEgdWNhbg', 'x-auth-type': 'ucan' },
    });
    expect(forged.status).toBe(401);
    // Now even the right key is refused until the allowance refills (one failure every 15 s).
    const refused = await listVouchers(base, adminKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'auth-failures' } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(15);
    const user = await ucanUser(oracleDid);
    const oracle = await answer(await fetch(`${base}/sessions`, { headers: await user.headers() }));
    expect(oracle.status).toBe(429);
    // Public routes and USSD are not behind an API key: still served.
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
