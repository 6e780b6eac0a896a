import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { fakeModel, type FakeModel } from '../../../support/fake-model.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../../../support/processes.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

type Frame = { event: string; data: Record<string, unknown> };

/**
 * A model that calls the client: `read_page` (a browser tool) when asked about the page,
 * `confirm_delivery` (an AG-UI action) when asked to confirm; once it has the result, it says it.
 */
function model(): Promise<FakeModel> {
  return fakeModel((request, send) => {
    const result = request.messages.find((m) => m.role === 'tool');
    const asked = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const call = asked.includes('page')
      ? { id: 'call_page', function: { name: 'read_page', arguments: '{"selector":"h1"}' } }
      : {
          id: `call_${Math.random().toString(36).slice(2)}`,
          function: { name: 'confirm_delivery', arguments: '{"voucherId":"v-9"}' },
        };
    if (!result) send({ tool_calls: [{ index: 0, ...call }] });
    else send({ content: `The client said ${result.content}` });
  });
}

/** The SSE frames of a whole response. */
async function frames(res: Response): Promise<Frame[]> {
  return (await res.text())
    .split('\n\n')
    .filter((f) => f.startsWith('event: '))
    .map((f) => {
      const [event, data] = f.split('\n');
      return { event: event!.slice(7), data: JSON.parse(data!.slice(6)) as Record<string, unknown> };
    });
}

describe('client calls: browser tools and AG-UI actions answered over socket.io', () => {
  let env: Isolated;
  let hearth: Hearth;
  let b: HearthProcess;
  let baseB = '';
  let llm: FakeModel;
  let oracleDid = '';
  let base = '';
  const sockets: Socket[] = [];
  const action = { name: 'confirm_delivery', description: 'Asks the user to confirm', schema: { type: 'object' } };

  beforeAll(async () => {
    llm = await model();
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
        LLM_BASE_URL: llm.url,
        ORACLE_CLIENT_CALL_SECONDS: '3',
        ORACLE_SSE_HEARTBEAT_SECONDS: '1',
      }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
    // A second gateway process: a browser connected there answers the turns run here.
    b = spawnHearth(env.env({ ROLE: 'gateway', ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, LOG_LEVEL: 'info' }));
    baseB = `http://127.0.0.1:${Number((await b.waitFor((l) => l.msg === 'hearth listening')).port)}`;
  });

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await b.stop();
    await hearth.close();
    await env.cleanup();
    await llm.close();
  });

  /** A user with a session and a socket connected to it, as the ixo client SDK connects. */
  async function userWithSocket(socketBase = base): Promise<{
    user: Awaited<ReturnType<typeof ucanUser>>;
    sessionId: string;
    socket: Socket;
  }> {
    const user = await ucanUser(oracleDid);
    const res = await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() });
    const { sessionId } = (await res.json()) as { sessionId: string };
    const socket = connect(socketBase, {
      path: '/socket.io',
      transports: ['websocket'],
      query: { sessionId },
      auth: { invocation: await user.invocation() },
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise((resolve) => socket.once('connected', resolve));
    return { user, sessionId, socket };
  }

  const send = async (user: Awaited<ReturnType<typeof ucanUser>>, sessionId: string, body: unknown) =>
    fetch(`${base}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('sends browser_tool_call to the session room and feeds the tool_result back to the model', async () => {
    const { user, sessionId, socket } = await userWithSocket();
    socket.on('browser_tool_call', (call: { toolCallId: string; toolName: string; args: { selector: string } }) => {
      expect(call).toMatchObject({ toolName: 'read_page', args: { selector: 'h1' }, sessionId });
      socket.emit('tool_result', { toolCallId: call.toolCallId, sessionId, result: { text: 'Clean stoves' } });
    });
    const res = await send(user, sessionId, {
      message: 'What does the page say?',
      tools: [{ name: 'read_page', description: 'Reads the page', schema: { type: 'object' } }],
    });
    const body = (await res.json()) as { message: { content: string } };
    expect(body.message.content).toBe('The client said {"text":"Clean stoves"}');
  });

  it('relays one answer per waiting call: a second one, one for no call, or an oversized one is refused', async () => {
    const { user, sessionId, socket } = await userWithSocket();
    const errors: string[] = [];
    socket.on('error', (e: { message: string }) => errors.push(e.message));
    socket.on('browser_tool_call', (call: { toolCallId: string }) => {
      // Too large first (refused, the call still waits), then the answer, then the same answer again.
      socket.emit('tool_result', { toolCallId: call.toolCallId, sessionId, result: 'x'.repeat(300_000) });
      socket.emit('tool_result', { toolCallId: call.toolCallId, sessionId, result: { text: 'first' } });
      socket.emit('tool_result', { toolCallId: call.toolCallId, sessionId, result: { text: 'second' } });
    });
    const res = await send(user, sessionId, {
      message: 'What does the page say?',
      tools: [{ name: 'read_page', description: 'Reads the page', schema: { type: 'object' } }],
    });
    expect(((await res.json()) as { message: { content: string } }).message.content).toBe(
      'The client said {"text":"first"}',
    );
    socket.emit('tool_result', { toolCallId: 'never-asked', sessionId, result: 1 });
    const stream = chatKeys.events(env.keys, sessionId);
    await eventually(
      () => Promise.resolve(errors),
      (e) => e.length === 3,
      5_000,
    );
    expect(errors[0]).toMatch(/^tool_result too large/);
    expect(errors.slice(1)).toEqual([
      expect.stringMatching(/^tool_result for no waiting call/),
      'tool_result for no waiting call (never-asked): answered, timed out, or never made',
    ]);
    // Exactly one tool_result reached the session's stream, and the stream does not live for ever.
    const events = await env.redis.xrange(stream, '-', '+');
    expect(events.filter(([, f]) => f[f.indexOf('event') + 1] === 'tool_result')).toHaveLength(1);
    expect(await env.redis.pttl(stream)).toBeGreaterThan(0);
  });

  it('runs an AG-UI action: action_call to the room and the SSE stream, the result back to the model', async () => {
    const { user, sessionId, socket } = await userWithSocket();
    const seen: Array<Record<string, unknown>> = [];
    socket.on('action_call', (call: Record<string, unknown>) => {
      seen.push(call);
      if (call.status === 'isRunning') {
        socket.emit('action_call_result', { toolCallId: call.toolCallId, sessionId, result: { confirmed: true } });
      }
    });
    const res = await send(user, sessionId, {
      message: 'Please confirm my delivery',
      stream: true,
      agActions: [{ ...action, hasRender: true }],
    });
    const all = await frames(res);
    const calls = all.filter((f) => f.event === 'action_call').map((f) => f.data);
    expect(calls).toEqual([
      expect.objectContaining({
        toolName: 'confirm_delivery',
        args: { voucherId: 'v-9' },
        status: 'isRunning',
        sessionId,
      }),
      expect.objectContaining({ toolName: 'confirm_delivery', status: 'done', output: { confirmed: true } }),
    ]);
    expect(calls[0]!.toolCallId).toBe(calls[1]!.toolCallId);
    // An action is shown as action_call, not as a tool_call.
    expect(all.some((f) => f.event === 'tool_call')).toBe(false);
    const text = all
      .filter((f) => f.event === 'message')
      .map((f) => f.data.content)
      .join('');
    expect(text).toBe('The client said {"confirmed":true}');
    // The socket saw the call once, while it ran, with the request id the SDK keys its UI on: the
    // SDK runs its handler on every room action_call, so the done goes to the SSE stream only.
    expect(seen.map((c) => c.status)).toEqual(['isRunning']);
    expect(seen[0]).toMatchObject({ requestId: res.headers.get('x-request-id') });
    const transcript = (await (
      await fetch(`${base}/messages/${sessionId}`, { headers: await user.headers() })
    ).json()) as { messages: Array<{ toolCalls?: Array<Record<string, unknown>> }> };
    expect(transcript.messages.at(-1)!.toolCalls).toEqual([
      expect.objectContaining({ name: 'confirm_delivery', status: 'done', output: '{"confirmed":true}' }),
    ]);
  });

  it('takes the answer from a socket on another gateway process than the one running the turn', async () => {
    const { user, sessionId, socket } = await userWithSocket(baseB);
    socket.on('action_call', (call: Record<string, unknown>) => {
      if (call.status === 'isRunning') {
        socket.emit('action_call_result', { toolCallId: call.toolCallId, sessionId, result: { via: 'B' } });
      }
    });
    const res = await send(user, sessionId, { message: 'confirm it', agActions: [action] });
    expect(((await res.json()) as { message: { content: string } }).message.content).toBe(
      'The client said {"via":"B"}',
    );
  });

  it("shows a client's failed action (the SDK's error shape) as action_call error", async () => {
    const { user, sessionId, socket } = await userWithSocket();
    socket.on('action_call', (call: Record<string, unknown>) => {
      if (call.status !== 'isRunning') return;
      // What the ixo client SDK emits when its handler throws.
      socket.emit('action_call_result', {
        toolCallId: call.toolCallId,
        sessionId,
        result: { success: false, error: 'the user declined' },
        error: 'the user declined',
      });
    });
    const all = await frames(await send(user, sessionId, { message: 'confirm it', stream: true, agActions: [action] }));
    expect(all.filter((f) => f.event === 'action_call').map((f) => f.data)).toEqual([
      expect.objectContaining({ status: 'isRunning' }),
      expect.objectContaining({ status: 'error', error: 'the user declined' }),
    ]);
    expect(all.filter((f) => f.event === 'message').map((f) => f.data.content)).toEqual([
      'The client said {"success":false,"error":"the user declined"}',
    ]);
  });

  it('gives up on a client that never answers: action_call error, the model told the outcome is unknown', async () => {
    const { user, sessionId } = await userWithSocket();
    const started = Date.now();
    const res = await send(user, sessionId, { message: 'confirm it', stream: true, agActions: [action] });
    const raw = await res.clone().text();
    const all = await frames(res);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    // A quiet stream (the client is thinking) keeps its connection alive with heartbeat comments.
    expect(raw.split(': heartbeat\n\n').length - 1).toBeGreaterThanOrEqual(2);
    expect(all.filter((f) => f.event === 'action_call').at(-1)!.data).toMatchObject({
      status: 'error',
      error: 'the client did not answer within 3 s',
    });
    expect(all.filter((f) => f.event === 'message').map((f) => f.data.content)).toEqual([
      'The client said {"outcome":"FRONTEND_OUTCOME_UNKNOWN"}',
    ]);
    expect(all.at(-1)!.event).toBe('done');
  });

  it('stops waiting for the client when the owner aborts: action_call error, then done', async () => {
    const { user, sessionId, socket } = await userWithSocket();
    socket.on('action_call', (call: Record<string, unknown>) => {
      if (call.status !== 'isRunning') return;
      void (async () =>
        fetch(`${base}/messages/abort`, {
          method: 'POST',
          headers: { ...(await user.headers()), 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId }),
        }))();
    });
    const started = Date.now();
    const all = await frames(await send(user, sessionId, { message: 'confirm it', stream: true, agActions: [action] }));
    expect(Date.now() - started).toBeLessThan(2_900);
    expect(all.filter((f) => f.event === 'action_call').at(-1)!.data).toMatchObject({
      status: 'error',
      error: 'the turn was aborted',
    });
    expect(all.at(-1)!.event).toBe('done');
  });

  it('refuses a malformed action_call_result with an error event and keeps the socket', async () => {
    const { socket } = await userWithSocket();
    const error = new Promise<Record<string, unknown>>((resolve) => socket.once('error', resolve));
    socket.emit('action_call_result', { result: 1, surprise: true });
    expect(await error).toMatchObject({ message: 'malformed action_call_result' });
    socket.emit('ping');
    await new Promise((resolve) => socket.once('pong', resolve));
    expect(socket.connected).toBe(true);
  });
});
