import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

type User = Awaited<ReturnType<typeof ucanUser>>;

/** Reads a whole SSE response into its frames. */
async function frames(res: Response): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('event: '))
    .map((f) => {
      const [e, d] = f.split('\n');
      return {
        event: e!.slice('event: '.length),
        data: JSON.parse(d!.slice('data: '.length)) as Record<string, unknown>,
      };
    });
}

describe('oracle messages (spec 001): JSON and SSE, transcript, abort', () => {
  let env: Isolated;
  let hearth: Hearth;
  let alice: User;
  let bob: User;
  let base = '';
  let sessionId = '';

  beforeAll(async () => {
    env = await isolated();
    const oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, HEARTH_ADMIN_KEY: adminKey }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
    // Alice is a household with a voucher of 40.
    const a = api(hearth.port);
    const implementer = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key as string;
    await a.call('POST', '/v1/households', { key: implementer, body: { did: alice.did } });
    await a.call('POST', '/v1/certificates', {
      key: implementer,
      body: {
        id: 'cert-oracle',
        projectId: 'did:ixo:entity:p1',
        verifiedReduction: 40,
        status: 'verified',
        monitoringPlan: { approvedProducts: ['stove'], acceptedCredentialTypes: ['D'], claimWindowDays: 30 },
      },
    });
    const issued = await a.call('POST', '/v1/vouchers/issue', {
      key: implementer,
      body: {
        recipientDid: alice.did,
        emissionCertificateId: 'cert-oracle',
        value: 40,
        attributes: { batchId: 'b', issuanceDate: '2026-01-01', expiryDate: '2099-12-31' },
      },
    });
    expect(issued.status).toBe(201);
    const s = await fetch(`${base}/sessions`, { method: 'POST', headers: await alice.headers() });
    sessionId = ((await s.json()) as { sessionId: string }).sessionId;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const send = async (as: User, body: unknown, session = sessionId) =>
    fetch(`${base}/messages/${session}`, {
      method: 'POST',
      headers: { ...(await as.headers()), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it("answers a question about the caller's own vouchers in one JSON reply, through a tool", async () => {
    const res = await send(alice, { message: 'What is my voucher balance?', returnAllMessages: true });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      message: { type: string; content: string; id: string };
      sessionId: string;
      messages: unknown[];
    };
    expect(body.sessionId).toBe(sessionId);
    expect(body.message.type).toBe('ai');
    expect(body.message.content).toMatch(/You have 1 voucher: vch_\w+ \(active\) with 40 of 40 left\./);
    expect(body.messages).toHaveLength(2);
    const list = (await (await fetch(`${base}/messages/${sessionId}`, { headers: await alice.headers() })).json()) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(list.messages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(list.messages[0]).toEqual({
      id: expect.any(String),
      type: 'human',
      content: 'What is my voucher balance?',
      isComplete: true,
      isReasoning: false,
    });
    expect(list.messages[1]).toMatchObject({
      id: body.message.id,
      toolCalls: [{ name: 'my_vouchers', status: 'done' }],
    });
  });

  it('streams SSE with the wire headers and event order, ending with done', async () => {
    const res = await send(alice, { message: 'Any voucher or survey for me?', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const all = await frames(res);
    const names = all.map((f) => f.event);
    expect(names[0]).toBe('reasoning');
    expect(all[0]!.data).toMatchObject({ sessionId, reasoning: 'Thinking...', isComplete: false });
    expect(names.at(-1)).toBe('done');
    expect(names.at(-2)).toBe('reasoning');
    expect(all.at(-2)!.data).toMatchObject({ isComplete: true });
    // The route the agent took, each tool's component, and the transcript's invalidation.
    expect(names[1]).toBe('router.update');
    expect(all[1]!.data).toMatchObject({ step: 'my_vouchers,open_surveys', sessionId });
    expect(all.filter((f) => f.event === 'render_component').map((f) => f.data.componentName)).toEqual([
      'VoucherList',
      'OpenSurvey',
    ]);
    expect(names.at(-3)).toBe('message_cache_invalidation');
    expect(all.at(-3)!.data).toMatchObject({ status: 'done', sessionId });
    const tools = all.filter((f) => f.event === 'tool_call').map((f) => [f.data.toolName, f.data.status]);
    expect(tools).toEqual([
      ['my_vouchers', 'isRunning'],
      ['my_vouchers', 'done'],
      ['open_surveys', 'isRunning'],
      ['open_surveys', 'done'],
    ]);
    const text = all
      .filter((f) => f.event === 'message')
      .map((f) => f.data.content)
      .join('');
    expect(names.filter((n) => n === 'message').length).toBeGreaterThan(5);
    expect(text).toMatch(/40 of 40 left\. There is no survey open for you right now\./);
    // The stream's events are in the session's Redis stream, for any gateway and redis-cli.
    expect(await env.redis.xlen(chatKeys.events(env.keys, sessionId))).toBeGreaterThan(all.length);
  });

  it("keeps other users out: another user's session is 404 for messages, transcript and abort", async () => {
    expect((await send(bob, { message: 'hi' })).status).toBe(404);
    expect((await fetch(`${base}/messages/${sessionId}`, { headers: await bob.headers() })).status).toBe(404);
    const abort = await fetch(`${base}/messages/abort`, {
      method: 'POST',
      headers: { ...(await bob.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId }),
    });
    expect(abort.status).toBe(404);
  });

  it('aborts a turn in flight for its owner only, and says when there is none', async () => {
    const abort = async () =>
      (
        await fetch(`${base}/messages/abort`, {
          method: 'POST',
          headers: { ...(await alice.headers()), 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId }),
        })
      ).json();
    expect(await abort()).toEqual({ success: false });
    // A turn in flight (as another gateway would mark it): the abort reaches it through Redis.
    await env.redis.set(chatKeys.turn(env.keys, sessionId), 'req-in-flight', 'PX', 5_000);
    expect(await abort()).toEqual({ success: true });
    // The abort is an event on the session's stream, which the turn (on any process) follows.
    const [last] = await env.redis.xrevrange(chatKeys.events(env.keys, sessionId), '+', '-', 'COUNT', 1);
    expect(last?.[1]).toEqual([
      'requestId',
      'abort:req-in-flight',
      'event',
      'abort',
      'data',
      '{"requestId":"req-in-flight"}',
    ]);
    // One turn at a time while a client reads it (oracle-turn-replacement.test.ts has the rest).
    await env.redis.zadd(chatKeys.turnReaders(env.keys, sessionId, 'req-in-flight'), Date.now() + 5_000, 'tab');
    const busy = await send(alice, { message: 'hello' });
    expect(busy.status).toBe(409);
    await env.redis.del(chatKeys.turn(env.keys, sessionId));
  });

  it('runs a streamed turn to its end even when the client is gone before the first byte', async () => {
    const res = await fetch(`${base}/sessions`, { method: 'POST', headers: await alice.headers() });
    const { sessionId: sid } = (await res.json()) as { sessionId: string };
    // The whole request on a raw connection, closed at once: the phone loses its signal right
    // after sending, before hearth has written a byte back.
    const body = JSON.stringify({ message: 'Any voucher for me?', stream: true });
    const head = {
      ...(await alice.headers()),
      'content-type': 'application/json',
      'content-length': String(body.length),
    };
    await new Promise<void>((resolve, reject) => {
      const socket = connectTcp(hearth.port, '127.0.0.1', () => {
        const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}`);
        socket.end(
          `POST /messages/${sid} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`,
          resolve,
        );
      });
      socket.on('error', reject);
    });
    const transcript = async () =>
      (
        (await (await fetch(`${base}/messages/${sid}`, { headers: await alice.headers() })).json()) as {
          messages: Array<{ type: string; content: string }>;
        }
      ).messages;
    // The turn began (its question is in the transcript), so the next message cannot overtake it.
    expect((await eventually(transcript, (m) => m.length > 0, 5_000, 20))[0]?.content).toBe('Any voucher for me?');
    // The turn still answers and frees the session: the next message is taken, not refused.
    const next = await eventually(
      async () => (await send(alice, { message: 'hello again' }, sid)).status,
      (status) => status !== 409,
      5_000,
      50,
    );
    expect(next).toBe(200);
    // The first turn ran: its question and its answer are in the transcript, before the second.
    const messages = await transcript();
    expect(messages.map((m) => m.type)).toEqual(['human', 'ai', 'human', 'ai']);
    expect(messages[0]!.content).toBe('Any voucher for me?');
  });

  it('refuses a second turn named by the same X-Request-Id (an id names one turn of a session)', async () => {
    const res = await fetch(`${base}/sessions`, { method: 'POST', headers: await alice.headers() });
    const { sessionId: sid } = (await res.json()) as { sessionId: string };
    const post = async () =>
      fetch(`${base}/messages/${sid}`, {
        method: 'POST',
        headers: { ...(await alice.headers()), 'content-type': 'application/json', 'x-request-id': 'fixed-id-1' },
        body: JSON.stringify({ message: 'hello' }),
      });
    const first = await post();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-request-id')).toBe('fixed-id-1');
    const again = await post();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('CHAT_REQUEST_ID_REUSED');
  });

  it('refuses bad bodies with 400: unknown field, 11 attachments, wrong types, a huge message', async () => {
    const attachment = { mxcUri: 'mxc://server/abc', filename: 'a.png', mimetype: 'image/png' };
    for (const body of [
      { message: 'hi', surprise: true },
      { message: 'hi', attachments: Array.from({ length: 11 }, () => attachment) },
      { message: 42 },
      { message: 'hi', stream: 'yes' },
      { message: 'hi', attachments: [{ filename: 'a', mimetype: 'b' }] },
      { message: 'x'.repeat(100_001) },
      {},
    ]) {
      const res = await send(alice, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    // An unknown field is refused by name, so its sender sees why (`model` is known: see
    // oracle-sdk-turns.test.ts).
    const unknown = (await (await send(alice, { message: 'hi', temperature: 0.2 })).json()) as { message: string };
    expect(unknown.message).toContain('temperature');
    expect(
      (
        await send(alice, {
          message: 'hi',
          attachments: [attachment, { eventId: '$e1', filename: 'b', mimetype: 'c' }],
        })
      ).status,
    ).toBe(200);
  });
});
