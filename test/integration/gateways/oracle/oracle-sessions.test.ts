import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

const MISSING =
  'Missing UCAN authentication: provide Authorization: Bearer <invocation> with X-Auth-Type: ucan, or an x-ucan-delegation header';

describe('oracle sessions (spec 001) with UCAN invocations', () => {
  let env: Isolated;
  let hearth: Hearth;
  let oracleDid = '';
  let alice: Awaited<ReturnType<typeof ucanUser>>;
  let bob: Awaited<ReturnType<typeof ucanUser>>;
  let base = '';

  beforeAll(async () => {
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, ORACLE_NAME: 'Hearth Oracle' }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const call = async (path: string, init: RequestInit & { as?: typeof alice } = {}) => {
    const headers = { ...(init.as ? await init.as.headers() : {}), ...(init.headers as Record<string, string>) };
    const res = await fetch(`${base}${path}`, { ...init, headers });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  it("creates sessions in the wire shape and lists only the caller's, newest first", async () => {
    const first = await call('/sessions', { method: 'POST', as: alice });
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual([
      'createdAt',
      'lastUpdatedAt',
      'oracleDid',
      'oracleName',
      'sessionId',
    ]);
    expect(first.body).toMatchObject({ oracleName: 'Hearth Oracle', oracleDid });
    const second = await call('/sessions', { method: 'POST', as: alice });
    await call('/sessions', { method: 'POST', as: bob });
    const list = await call('/sessions', { as: alice });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([
      second.body.sessionId,
      first.body.sessionId,
    ]);
    const page = await call('/sessions?limit=1&offset=1', { as: alice });
    expect(page.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([first.body.sessionId]);
    expect((await call('/sessions?limit=101', { as: alice })).status).toBe(400);
    expect((await call('/sessions?limit=5&extra=1', { as: alice })).status).toBe(400);
  });

  it("deletes idempotently (200 as the reference runtime), never touching another user's session", async () => {
    const s = await call('/sessions', { method: 'POST', as: alice });
    const id = s.body.sessionId as string;
    const deleted = { status: 200, body: { message: 'Session deleted successfully' } };
    // Another user is answered as for any session that is not theirs, and nothing changes.
    expect(await call(`/sessions/${id}`, { method: 'DELETE', as: bob })).toEqual(deleted);
    const kept = await call('/sessions', { as: alice });
    expect(kept.body.sessions.map((x: { sessionId: string }) => x.sessionId)).toContain(id);
    expect((await call(`/messages/${id}`, { as: bob })).status).toBe(404);
    // Its owner deletes it; again, and an id that never existed, answer the same.
    expect(await call(`/sessions/${id}`, { method: 'DELETE', as: alice })).toEqual(deleted);
    expect(await call(`/sessions/${id}`, { method: 'DELETE', as: alice })).toEqual(deleted);
    expect(await call('/sessions/never-was-a-session', { method: 'DELETE', as: alice })).toEqual(deleted);
    const list = await call('/sessions', { as: alice });
    expect(list.body.sessions.map((x: { sessionId: string }) => x.sessionId)).not.toContain(id);
  });

  it("answers 404 to the newer runtime's probes, so its clients fall back to these routes", async () => {
    const res = await fetch(`${base}/sessions`, { method: 'POST', headers: await alice.headers() });
    const { sessionId } = (await res.json()) as { sessionId: string };
    for (const path of [`/sessions/${sessionId}/messages`, `/sessions/${sessionId}/run`, `/runs/${sessionId}`]) {
      expect((await fetch(`${base}${path}`, { headers: await alice.headers() })).status, path).toBe(404);
    }
  });

  it("answers the spec's 401 messages: none, ignored bearer, replayed invocation", async () => {
    const none = await call('/sessions');
    expect(none.status).toBe(401);
    expect(none.body.error.message).toBe(MISSING);
    const token = await alice.invocation();
    const noSelector = await call('/sessions', { headers: { authorization: `Bearer ${token}` } });
    expect(noSelector.body.error.message).toBe(MISSING);
    const headers = { authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' };
    expect((await call('/sessions', { headers })).status).toBe(200);
    const replay = await call('/sessions', { headers });
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toBe('Invalid UCAN invocation');
    const garbage = await call('/sessions', { headers: { authorization: 'Bearer AAAA', 'x-auth-type': 'ucan' } });
    expect(garbage.body.error.message).toBe('Invalid UCAN invocation');
  });

  it('falls back to the delegation when the invocation beside it is spent (a resumed EventSource sends both again)', async () => {
    const headers = {
      authorization: `Bearer ${await alice.invocation()}`,
      'x-auth-type': 'ucan',
      'x-ucan-delegation': await alice.delegation(),
    };
    expect((await call('/sessions', { headers })).status).toBe(200);
    expect((await call('/sessions', { headers })).status).toBe(200);
    // A delegation that is not valid either: the invocation's refusal is the answer.
    const spent = { ...headers, 'x-ucan-delegation': 'AAAA' };
    const refused = await call('/sessions', { headers: spent });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toBe('Invalid UCAN invocation');
  });

  it('answers 503 on a deployment without ORACLE_DID', async () => {
    const other = await startHearth(env.config({ ROLE: 'gateway', ACTOR_PARTITIONS: '2' }), env.log, {
      migrate: false,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${other.port}/sessions`, { headers: await alice.headers() });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ORACLE_NOT_CONFIGURED');
    } finally {
      await other.close();
    }
  });
});
