import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_CACHE_MS } from '../../../../src/gateways/oracle/delegation-store.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { movableClock } from '../../../support/clock.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, reencoded, ucanUser } from '../../../support/ucan-tokens.js';

describe('oracle delegation store (spec 001)', () => {
  let env: Isolated;
  let hearth: Hearth;
  /** A second gateway process with its own revocation memory, on a clock the test moves. */
  let other: Hearth;
  const otherClock = movableClock();
  let oracleDid = '';
  let alice: Awaited<ReturnType<typeof ucanUser>>;
  let bob: Awaited<ReturnType<typeof ucanUser>>;

  beforeAll(async () => {
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid }), env.log);
    other = await startHearth(env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, ROLE: 'gateway' }), env.log, {
      clock: otherClock,
    });
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
  });

  afterAll(async () => {
    await other?.close();
    await hearth.close();
    await env.cleanup();
  });

  const call = async (method: string, body?: unknown, as = alice, headers: Record<string, string> = {}) => {
    const res = await fetch(`http://127.0.0.1:${hearth.port}/delegation`, {
      method,
      headers: { ...(await as.headers()), 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  it('stores a valid delegation sealed, reports it, and revokes it', async () => {
    expect(await call('GET')).toEqual({ status: 200, body: { authorized: false } });
    // Each test below uses lifetimes of its own: the same issuer, audience and expiry (to the
    // second) would be this delegation's CID, revoked at the end of this test.
    const raw = await alice.delegation(3600);
    const stored = await call('POST', { raw, issuer: alice.did, audience: oracleDid });
    expect(stored.status).toBe(200);
    expect(stored.body.ok).toBe(true);
    expect(stored.body.expiration).toBeGreaterThan(Date.now() / 1000);
    const [row] = await env.sql<{ sealed: string }[]>`SELECT sealed FROM oracle_delegations WHERE did = ${alice.did}`;
    expect(row?.sealed).toBeDefined();
    expect(row?.sealed).not.toContain(raw.slice(0, 40)); // never in clear at rest
    expect((await call('GET')).body).toEqual({ authorized: true, expiration: stored.body.expiration });
    expect((await call('GET', undefined, bob)).body).toEqual({ authorized: false });
    expect(await call('DELETE')).toEqual({ status: 200, body: { ok: true } });
    expect((await call('GET')).body).toEqual({ authorized: false });
  });

  it('stores a delegation whose expiry is past any timestamp (exp 1e14) as one that does not expire, not a 500', async () => {
    const far = await call('POST', { raw: await alice.delegation(1e14) });
    expect(far.status).toBe(200);
    expect(far.body.ok).toBe(true);
    expect((await call('GET')).body).toEqual({ authorized: true });
    expect(await call('DELETE')).toEqual({ status: 200, body: { ok: true } });
  });

  it('refuses a delegation from another issuer, to another audience, expired, or malformed (400)', async () => {
    const fromBob = await call('POST', { raw: await bob.delegation() });
    expect(fromBob.status).toBe(400);
    const elsewhere = await call('POST', { raw: await alice.delegation(3600, await oracleIdentity()) });
    expect(elsewhere.status).toBe(400);
    const expired = await call('POST', { raw: await alice.delegation(-60) });
    expect(expired.status).toBe(400);
    expect((await call('POST', { raw: 'not a car' })).status).toBe(400);
    expect((await call('POST', { raw: await alice.delegation(), extra: 1 })).status).toBe(400);
    expect((await call('POST', { raw: await alice.delegation(), issuer: bob.did })).status).toBe(400);
    // An expiration given beside the CAR must be the CAR's own.
    const wrongExpiry = await call('POST', { raw: await alice.delegation(3_601), expiration: 1 });
    expect(wrongExpiry.status).toBe(400);
    expect(wrongExpiry.body.error.message).toMatch(/expiration must be the delegation's own/);
    expect((await call('GET')).body).toEqual({ authorized: false });
  });

  it('accepts a delegation alone as the credential (x-ucan-delegation), naming its issuer', async () => {
    const res = await fetch(`http://127.0.0.1:${hearth.port}/sessions`, {
      method: 'POST',
      headers: { 'x-ucan-delegation': await alice.delegation(3_602) },
    });
    expect(res.status).toBe(201);
    const list = await fetch(`http://127.0.0.1:${hearth.port}/sessions`, { headers: await alice.headers() });
    expect(((await list.json()) as { total: number }).total).toBe(1);
  });

  it('refuses a revoked delegation at once on the revoking gateway, on another within the window, and storing it again', async () => {
    // A lifetime no other test uses: the same issuer, audience and expiry would be the same CID.
    const raw = await alice.delegation(3_333);
    expect((await call('POST', { raw })).status).toBe(200);
    const sessions = (port: number) =>
      fetch(`http://127.0.0.1:${port}/sessions`, { headers: { 'x-ucan-delegation': raw } }).then((r) => r.status);
    // Both gateways have just checked it: each remembers "not revoked".
    expect(await sessions(hearth.port)).toBe(200);
    expect(await sessions(other.port)).toBe(200);
    const revoked = async () =>
      (await env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM oracle_revoked_delegations`)[0]?.n;
    const before = await revoked();
    // Revoked with the delegation itself as the credential: its own last use.
    const gone = await fetch(`http://127.0.0.1:${hearth.port}/delegation`, {
      method: 'DELETE',
      headers: { 'x-ucan-delegation': raw },
    });
    expect(gone.status).toBe(200);
    expect(await revoked()).toBe((before ?? 0) + 1);
    expect(await sessions(hearth.port)).toBe(401);
    // The other gateway's memory answers "not revoked" for at most REVOCATION_CACHE_MS.
    otherClock.advance(REVOCATION_CACHE_MS);
    expect(await sessions(other.port)).toBe(401);
    const again = await call('POST', { raw });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/revoked/);
    // The same signed delegation under another content id is the same revoked delegation.
    const disguised = await reencoded(raw);
    const asCredential = await fetch(`http://127.0.0.1:${hearth.port}/sessions`, {
      headers: { 'x-ucan-delegation': disguised },
    });
    expect(asCredential.status).toBe(401);
    expect((await call('POST', { raw: disguised })).body.error.message as string).toMatch(/revoked/);
    // A new delegation of the same user works.
    const fresh = await alice.delegation(3_334);
    expect(
      await fetch(`http://127.0.0.1:${hearth.port}/sessions`, { headers: { 'x-ucan-delegation': fresh } }).then(
        (r) => r.status,
      ),
    ).toBe(200);
  }, 20_000);
});
