import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { json } from '../../../../src/gateways/http/reply.js';
import { CREDIT_MESSAGES } from '../../../../src/gateways/oracle/agent/credits-plugin.js';
import type { OraclePlugin } from '../../../../src/gateways/oracle/agent/plugin.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

type User = Awaited<ReturnType<typeof ucanUser>>;

/** A deployment's own plugin: a protected route, an open webhook, and a tool. */
const preferences: OraclePlugin = {
  name: 'preferences',
  routes: [
    {
      method: 'GET',
      path: '/user-preferences',
      doc: {
        operationId: 'getUserPreferences',
        summary: 'The caller’s preferences',
        tag: 'preferences',
        responses: { 200: '{did, language}' },
      },
      handler: (_ctx, who) => Promise.resolve(json(200, { did: who?.did, language: 'en' })),
    },
    {
      method: 'POST',
      path: '/webhooks/chat',
      doc: {
        operationId: 'chatWebhook',
        summary: 'A chat platform webhook',
        tag: 'preferences',
        responses: { 200: '{ok}' },
      },
      handler: () => Promise.resolve(json(200, { ok: true })),
    },
  ],
  authExcludedRoutes: ['POST /webhooks/chat'],
  tools: [
    {
      name: 'cooking_tip',
      description: 'A clean-cooking tip.',
      parameters: { type: 'object', properties: {} },
      trigger: /tip/i,
      run: () => Promise.resolve({ tip: 'keep the stove lid on' }),
    },
    {
      name: 'stove_stock',
      description: 'Stoves in stock (its store is down in this test).',
      parameters: { type: 'object', properties: {} },
      trigger: /stock/i,
      run: () => Promise.reject(new Error('connect ECONNREFUSED db.internal:5432 (user stock_reader)')),
    },
  ],
};

describe('oracle plugins: routes, auth-excluded routes, tools, and the credits gate', () => {
  let env: Isolated;
  let hearth: Hearth;
  let subs: Server;
  const plans = new Map<string, { status: string; credits: number } | 'error'>();
  let users: Record<'none' | 'inactive' | 'low' | 'paid' | 'broken', User>;
  let base = '';

  beforeAll(async () => {
    subs = createServer((req, res) => {
      const did = new URL(req.url ?? '/', 'http://x').searchParams.get('did') ?? '';
      const plan = plans.get(did);
      if (plan === 'error') return res.writeHead(500).end();
      if (!plan) return res.writeHead(404).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(plan));
    });
    await new Promise<void>((resolve) => subs.listen(0, '127.0.0.1', resolve));
    const oracleDid = await oracleIdentity();
    env = await isolated();
    hearth = await startHearth(
      env.config({
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
        ORACLE_CREDITS_URL: `http://127.0.0.1:${(subs.address() as AddressInfo).port}/subscriptions`,
      }),
      env.log,
      { plugins: [preferences] },
    );
    base = `http://127.0.0.1:${hearth.port}`;
    users = {
      none: await ucanUser(oracleDid),
      inactive: await ucanUser(oracleDid),
      low: await ucanUser(oracleDid),
      paid: await ucanUser(oracleDid),
      broken: await ucanUser(oracleDid),
    };
    plans.set(users.inactive.did, { status: 'inactive', credits: 100 });
    plans.set(users.low.did, { status: 'active', credits: 9 });
    plans.set(users.paid.did, { status: 'active', credits: 50 });
    plans.set(users.broken.did, 'error');
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
    await new Promise((resolve) => subs.close(resolve));
  });

  async function ask(user: User, message: string) {
    const s = await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() });
    const { sessionId } = (await s.json()) as { sessionId: string };
    const res = await fetch(`${base}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { message?: { content: string }; error?: { message: string } },
    };
  }

  it('answers 402 with the reference messages unless the caller has an active plan with 10 credits', async () => {
    expect(await ask(users.none, 'hi')).toMatchObject({
      status: 402,
      body: { error: { message: CREDIT_MESSAGES.none } },
    });
    expect(await ask(users.inactive, 'hi')).toMatchObject({
      status: 402,
      body: { error: { message: CREDIT_MESSAGES.inactive } },
    });
    expect(await ask(users.low, 'hi')).toMatchObject({
      status: 402,
      body: { error: { message: CREDIT_MESSAGES.low } },
    });
    expect(await ask(users.broken, 'hi')).toMatchObject({
      status: 402,
      body: { error: { message: CREDIT_MESSAGES.failed } },
    });
    expect((await ask(users.paid, 'hi')).status).toBe(200);
  });

  it("calls a plugin's tool from the agent", async () => {
    const r = await ask(users.paid, 'Any tip for cooking?');
    expect(r.body.message?.content).toContain('cooking_tip: {"tip":"keep the stove lid on"}');
  });

  it("keeps a failing tool's reason out of the answer: the turn goes on, the client sees only that it failed", async () => {
    const r = await ask(users.paid, 'Are stoves in stock?');
    expect(r.status).toBe(200);
    expect(r.body.message?.content).toContain('stove_stock: {"error":"this tool could not run just now"}');
    expect(JSON.stringify(r.body)).not.toMatch(/db\.internal|stock_reader/);
  });

  it('serves plugin routes behind UCAN, and auth-excluded ones without, all in the OpenAPI document', async () => {
    const prefs = await fetch(`${base}/user-preferences`, { headers: await users.paid.headers() });
    expect(await prefs.json()).toEqual({ did: users.paid.did, language: 'en' });
    expect((await fetch(`${base}/user-preferences`)).status).toBe(401);
    const hook = await fetch(`${base}/webhooks/chat`, { method: 'POST', headers: { authorization: 'Bearer junk' } });
    expect(await hook.json()).toEqual({ ok: true });
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    expect(doc.paths['/user-preferences']?.get).toBeDefined();
    expect(doc.paths['/webhooks/chat']?.post?.security).toEqual([]);
  });
});
