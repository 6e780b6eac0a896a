import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { emitChatEvent } from '../../../../src/gateways/oracle/agent/chat-events.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../../../support/processes.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';
import { awaitedKey } from '../../../../src/gateways/oracle/agent/client-calls.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

type User = Awaited<ReturnType<typeof ucanUser>>;

describe('socket.io gateway (spec 001 events) on the uWebSockets.js app', () => {
  let env: Isolated;
  let a: Hearth;
  let b: HearthProcess;
  let bPort = 0;
  let alice: User;
  let bob: User;
  let sessionId = '';
  const sockets: Socket[] = [];

  beforeAll(async () => {
    env = await isolated();
    const oracleDid = await oracleIdentity();
    a = await startHearth(env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid }), env.log);
    // Process B: a gateway of its own, as in production.
    // B lists its browser origins (CORS_ORIGIN); A allows any.
    b = spawnHearth(
      env.env({
        ROLE: 'gateway',
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
        LOG_LEVEL: 'info',
        CORS_ORIGIN: 'https://app.example',
      }),
    );
    bPort = Number((await b.waitFor((l) => l.msg === 'hearth listening')).port);
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
    const res = await fetch(`http://127.0.0.1:${a.port}/sessions`, { method: 'POST', headers: await alice.headers() });
    sessionId = ((await res.json()) as { sessionId: string }).sessionId;
  });

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await b.stop();
    await a.close();
    await env.cleanup();
  });

  /** Connects as a client of the ixo runtime does: websocket only, sessionId query, auth object. */
  function open(port: number, auth: Record<string, unknown>, sid = sessionId, origin?: string): Socket {
    const socket = connect(`http://127.0.0.1:${port}`, {
      path: '/socket.io',
      transports: ['websocket'],
      query: { sessionId: sid },
      auth,
      reconnection: false,
      ...(origin ? { extraHeaders: { origin } } : {}),
    });
    sockets.push(socket);
    return socket;
  }

  // Generous: the suite runs its files in parallel on a 2-core machine, beside child processes.
  const next = <T>(socket: Socket, event: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${event} within 15 s`)), 15_000);
      socket.once(event, (payload: T) => {
        clearTimeout(timer);
        resolve(payload);
      });
    });

  it('connects with an invocation and answers ping, status, subscribe and list-events', async () => {
    const socket = open(a.port, { invocation: await alice.invocation() });
    expect(await next<Record<string, unknown>>(socket, 'connected')).toMatchObject({ sessionId });
    socket.emit('ping');
    expect(await next(socket, 'pong')).toMatchObject({ sessionId, timestamp: expect.any(String) });
    socket.emit('status');
    expect(await next(socket, 'status')).toMatchObject({
      connected: true,
      sessionId,
      totalConnections: expect.any(Number),
    });
    socket.emit('subscribe');
    expect(await next(socket, 'subscribed')).toMatchObject({ sessionId });
    socket.emit('list-events');
    const catalog = await next<{ clientEvents: string[]; serverEvents: string[] }>(socket, 'available-events');
    expect(catalog.clientEvents).toEqual([
      'ping',
      'status',
      'subscribe',
      'list-events',
      'tool_result',
      'action_call_result',
    ]);
    expect(catalog.serverEvents).toContain('browser_tool_call');
  });

  it('counts its connected sockets in hearth_sockets_connected', async () => {
    const connected = async () =>
      Number(
        /^hearth_sockets_connected (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${bPort}/metrics`)).text())?.[1],
      );
    const before = await connected();
    const socket = open(bPort, { invocation: await alice.invocation() });
    await next(socket, 'connected');
    expect(await connected()).toBe(before + 1);
    socket.disconnect();
    expect(await eventually(connected, (n) => n === before, 10_000)).toBe(before);
  });

  it('accepts a delegation as the fallback credential', async () => {
    const socket = open(a.port, { ucanDelegation: await alice.delegation() });
    expect(await next(socket, 'connected')).toMatchObject({ sessionId });
  });

  it('closes a socket that stands on a delegation when the delegation expires', async () => {
    const socket = open(a.port, { ucanDelegation: await alice.delegation(3) });
    await next(socket, 'connected');
    const told = next<{ message: string }>(socket, 'error');
    const reason = await next<string>(socket, 'disconnect');
    expect((await told).message).toMatch(/delegation expired/);
    expect(reason).toBe('io server disconnect');
  });

  it('takes browser sockets from the origins CORS_ORIGIN lists only (any origin where it is *)', async () => {
    await next(open(bPort, { invocation: await alice.invocation() }, sessionId, 'https://app.example'), 'connected');
    const foreign = await next<Error>(
      open(bPort, { invocation: await alice.invocation() }, sessionId, 'https://evil.example'),
      'connect_error',
    );
    expect(foreign.message).toBeTruthy();
    await next(open(a.port, { invocation: await alice.invocation() }, sessionId, 'https://evil.example'), 'connected');
  });

  it("refuses handshakes with no credential, a bad one, no sessionId, or another user's session", async () => {
    const none = await next<Error>(open(a.port, {}), 'connect_error');
    expect(none.message).toMatch(/^Missing UCAN authentication/);
    const bad = await next<Error>(open(a.port, { invocation: 'garbage' }), 'connect_error');
    expect(bad.message).toBe('Invalid UCAN invocation');
    const theft = await next<Error>(open(a.port, { invocation: await bob.invocation() }), 'connect_error');
    expect(theft.message).toMatch(/no session/);
    const noSession = await next<Error>(open(a.port, { invocation: await alice.invocation() }, ''), 'connect_error');
    expect(noSession.message).toMatch(/sessionId/);
  });

  it(
    "forwards an agent event written by any process to the session's room on another process",
    { timeout: 40_000 },
    async () => {
      const socket = open(bPort, { invocation: await alice.invocation() });
      const seen: string[] = [];
      socket.onAny((event: string) => seen.push(event));
      await next(socket, 'connected');
      // Listen first: process B may deliver an event before the second write returns here.
      const toolCall = next(socket, 'tool_call');
      const routerUpdate = next(socket, 'router_update');
      // As a turn on process A does: the event goes to the session's Redis stream.
      await emitChatEvent(env.redis, env.keys, sessionId, 'req-9', 'tool_call', {
        toolName: 'my_vouchers',
        status: 'isRunning',
        eventId: 'e1',
      });
      await emitChatEvent(env.redis, env.keys, sessionId, 'req-9', 'router.update', { step: 'answer' });
      expect(await toolCall).toMatchObject({ sessionId, requestId: 'req-9', toolName: 'my_vouchers' });
      expect(await routerUpdate).toMatchObject({ sessionId, step: 'answer' });
      // A sleep, not a wait for something: room for a duplicate, which must not come.
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).toEqual(['connected', 'tool_call', 'router_update']); // each event once
    },
  );

  it(
    'delivers every event of a real agent turn on process A to a socket on process B, once, with its request id',
    { timeout: 40_000 },
    async () => {
      const socket = open(bPort, { invocation: await alice.invocation() });
      const seen: Array<[string, Record<string, unknown>]> = [];
      socket.onAny((event: string, payload: Record<string, unknown>) => seen.push([event, payload]));
      await next(socket, 'connected');
      const invalidated = next(socket, 'message_cache_invalidation');
      const res = await fetch(`http://127.0.0.1:${a.port}/messages/${sessionId}`, {
        method: 'POST',
        headers: { ...(await alice.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Any vouchers or surveys for me?' }),
      });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id');
      await invalidated;
      const turn = seen.filter(([, p]) => p.requestId === requestId);
      expect(turn.map(([e]) => e)).toEqual([
        'router_update',
        'tool_call',
        'tool_call',
        'render_component',
        'tool_call',
        'tool_call',
        'render_component',
        'message_cache_invalidation',
      ]);
      expect(turn.every(([, p]) => p.sessionId === sessionId)).toBe(true);
      expect(turn[0]![1]).toMatchObject({ step: 'my_vouchers,open_surveys' });
      expect(turn[3]![1]).toMatchObject({ componentName: 'VoucherList', status: 'done' });
      expect(turn[7]![1]).toMatchObject({ status: 'done' });
      // Tokens are the SSE stream's business, not the room's.
      expect(seen.some(([e]) => e === 'message')).toBe(false);
    },
  );

  it("subscribes to its own session only: a subscribe naming another user's session changes nothing", async () => {
    const res = await fetch(`http://127.0.0.1:${a.port}/sessions`, { method: 'POST', headers: await bob.headers() });
    const bobSession = ((await res.json()) as { sessionId: string }).sessionId;
    const socket = open(a.port, { invocation: await alice.invocation() });
    await next(socket, 'connected');
    socket.emit('subscribe', { sessionId: bobSession });
    expect(await next(socket, 'subscribed')).toMatchObject({ sessionId });
    const leaked: unknown[] = [];
    socket.on('tool_call', (p: unknown) => leaked.push(p));
    const mine = next(socket, 'router_update');
    await emitChatEvent(env.redis, env.keys, bobSession, 'req-bob', 'tool_call', { toolName: 'x' });
    await emitChatEvent(env.redis, env.keys, sessionId, 'req-own', 'router.update', { step: 'answer' });
    await mine;
    // A sleep: Bob's event is on another stream, so arriving after ours proves nothing; room for it to leak.
    await new Promise((r) => setTimeout(r, 200));
    expect(leaked).toEqual([]);
  });

  it('forwards only agent events that fit their payload type; a malformed one is dropped, not a crash', async () => {
    const socket = open(a.port, { invocation: await alice.invocation() });
    await next(socket, 'connected');
    const seen: Array<Record<string, unknown>> = [];
    socket.on('tool_call', (p: Record<string, unknown>) => seen.push(p));
    const good = next<Record<string, unknown>>(socket, 'router_update');
    // No toolName, an unknown status: what a buggy plugin might write.
    await emitChatEvent(env.redis, env.keys, sessionId, 'req-bad', 'tool_call', { status: 'sideways' });
    await emitChatEvent(env.redis, env.keys, sessionId, 'req-bad', 'router.update', { step: 'answer' });
    expect(await good).toMatchObject({ step: 'answer', requestId: 'req-bad' });
    // A sleep, not a wait for something: room for the malformed event, which must not come.
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([]);
    socket.emit('ping');
    expect(await next(socket, 'pong')).toMatchObject({ sessionId });
  });

  it('relays a tool_result to the session stream and answers a malformed one without a crash', async () => {
    const socket = open(a.port, { invocation: await alice.invocation() });
    await next(socket, 'connected');
    // As a turn does before it sends the call: the answer to tc-1 is awaited.
    await env.redis.set(awaitedKey(env.keys, sessionId, 'tc-1'), '1', 'PX', 10_000);
    const refused = next(socket, 'error');
    socket.emit('tool_result', { toolCallId: 'tc-1', result: { ok: 1 } });
    socket.emit('tool_result', { nope: true });
    expect(await refused).toMatchObject({ message: 'malformed tool_result' });
    const relayed = (entries: Array<[string, string[]]>) =>
      entries.some(([, f]) => f.includes('tool_result') && f.includes('tc-1'));
    const entries = await eventually(
      () => env.redis.xrange(chatKeys.events(env.keys, sessionId), '-', '+'),
      relayed,
      5_000,
      20,
    );
    expect(relayed(entries)).toBe(true);
    socket.emit('ping');
    expect(await next(socket, 'pong')).toMatchObject({ sessionId }); // still up
  });
});
