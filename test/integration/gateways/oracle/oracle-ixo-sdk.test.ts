import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { MISSING_UCAN_MESSAGE } from '../../../../src/gateways/auth/ucan/errors.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import {
  askOracleStream,
  authHeaders,
  SDK_EVENTS,
  sdkRequest,
  SdkRequestError,
  type SdkEvent,
} from '../../../support/ixo-sdk-wire.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

type User = Awaited<ReturnType<typeof ucanUser>>;

/** A JSON Schema as the SDK makes it from a zod schema (zod-to-json-schema, draft 7). */
const schema = {
  type: 'object',
  properties: { voucherId: { type: 'string' } },
  required: ['voucherId'],
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
};

describe('the ixo oracles client SDK (1.4.0) request and SSE code path against hearth, tokens by @ucanto', () => {
  let env: Isolated;
  let hearth: Hearth;
  let api = '';
  let alice: User;
  let bob: User;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    env = await isolated();
    const oracleDid = await oracleIdentity();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid }), env.log);
    api = `http://127.0.0.1:${hearth.port}`;
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
  });

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await hearth.close();
    await env.cleanup();
  });

  /** What the SDK's `authedRequest` sends: the delegation, and an invocation when it can mint one. */
  const sdkHeaders = async (user: User, withInvocation = true) =>
    authHeaders(await user.delegation(), withInvocation ? await user.invocation() : undefined);

  const createSession = async (user: User) =>
    sdkRequest<{ sessionId: string; oracleDid: string }>(`${api}/sessions`, 'POST', {
      headers: await sdkHeaders(user),
    });

  it('creates, lists and deletes sessions as useOracleSessions does (JSON content type on every call)', async () => {
    const created = await createSession(alice);
    expect(created).toMatchObject({ sessionId: expect.any(String), oracleName: 'hearth' });
    const page = await sdkRequest<{ sessions: Array<{ sessionId: string }>; total: number }>(
      `${api}/sessions?limit=20&offset=0`,
      'GET',
      { headers: await sdkHeaders(alice) },
    );
    expect(page.sessions.map((s) => s.sessionId)).toContain(created.sessionId);
    expect(page.total).toBe(page.sessions.length);
    const deleted = await sdkRequest(`${api}/sessions/${created.sessionId}`, 'DELETE', {
      headers: await sdkHeaders(alice),
    });
    expect(deleted).toEqual({ message: 'Session deleted successfully' });
  });

  it('streams a turn through the SDK parser: every frame a known event, the text the transcript keeps', async () => {
    const { sessionId } = await createSession(alice);
    const events: SdkEvent[] = [];
    const { text, requestId } = await askOracleStream({
      apiURL: api,
      sessionId,
      message: 'What vouchers and surveys do I have?',
      headers: await sdkHeaders(alice),
      metadata: { editorRoomId: '!room:server' },
      browserTools: [{ name: 'read_page', description: 'Reads the page', schema }],
      agActions: [{ name: 'confirm_delivery', description: 'Confirms', schema, hasRender: true }],
      onEvent: (e) => void events.push(e),
    });
    expect(requestId).toMatch(/\S/);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('reasoning');
    expect(names.at(-1)).toBe('done');
    expect(names).toEqual(expect.arrayContaining(['tool_call', 'message', 'render_component']));
    expect(names.every((n) => (SDK_EVENTS as readonly string[]).includes(n))).toBe(true);
    const toolCalls = events.filter((e) => e.event === 'tool_call').map((e) => e.data);
    expect(toolCalls[0]).toMatchObject({ sessionId, requestId, toolName: 'my_vouchers', status: 'isRunning' });
    expect(text).toContain('You have no vouchers yet.');
    const transcript = await sdkRequest<{ messages: Array<{ type: string; content: string }> }>(
      `${api}/messages/${sessionId}`,
      'GET',
      { headers: await sdkHeaders(alice) },
    );
    expect(transcript.messages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(transcript.messages[1]!.content).toBe(text);
  });

  it('works with a delegation alone, as SDK versions without invocations send it', async () => {
    const { sessionId } = await createSession(alice);
    const { text } = await askOracleStream({
      apiURL: api,
      sessionId,
      message: 'hello',
      headers: await sdkHeaders(alice, false),
      onEvent: () => undefined,
    });
    expect(text).toMatch(/vouchers/);
  });

  it("surfaces hearth's refusals as the SDK's errors: the spec's 401 message, another user's session 404", async () => {
    const refused = await sdkRequest(`${api}/sessions`, 'GET', { headers: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SdkRequestError);
    expect(refused).toMatchObject({ message: MISSING_UCAN_MESSAGE, status: 401 });
    const { sessionId } = await createSession(alice);
    const stolen = await askOracleStream({
      apiURL: api,
      sessionId,
      message: 'hi',
      headers: await sdkHeaders(bob),
      onEvent: () => undefined,
    }).catch((e: unknown) => e);
    expect(stolen).toMatchObject({ status: 404 });
    const abort = await sdkRequest(`${api}/messages/abort`, 'POST', {
      headers: await sdkHeaders(alice),
      body: JSON.stringify({ sessionId }),
    });
    expect(abort).toEqual({ success: false });
  });

  it('reconnects after the connection drops, with the same auth object: the spent invocation gives way to the delegation', async () => {
    const { sessionId } = await createSession(alice);
    const socket = connect(api, {
      query: { sessionId },
      auth: { ucanDelegation: await alice.delegation(), invocation: await alice.invocation() },
      transports: ['websocket'],
      reconnectionDelay: 50,
      reconnectionDelayMax: 100,
    });
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connected', () => resolve()));
    const again = new Promise<string>((resolve) => {
      socket.once('connected', () => resolve('connected'));
      socket.once('connect_error', (err) => resolve(`refused: ${err.message}`));
    });
    // The network drops: socket.io-client reconnects on its own and sends the same auth.
    socket.io.engine.close();
    expect(await again).toBe('connected');
  });

  it('opens the socket as useWebSocketEvents does; the userDid query is never believed', async () => {
    const { sessionId } = await createSession(alice);
    const open = async (user: User, userDid: string) => {
      const socket = connect(api, {
        query: { sessionId, userDid },
        auth: { ucanDelegation: await user.delegation(), invocation: await user.invocation() },
        transports: ['websocket'],
        reconnection: false,
      });
      sockets.push(socket);
      return new Promise<string>((resolve) => {
        socket.once('connected', () => resolve('connected'));
        socket.once('connect_error', (err) => resolve(`refused: ${err.message}`));
      });
    };
    // Alice's tokens, whatever userDid says: connected to her session.
    expect(await open(alice, bob.did)).toBe('connected');
    // Bob's tokens claiming to be Alice: refused (her session is not his).
    expect(await open(bob, alice.did)).toMatch(/^refused/);
  });
});
