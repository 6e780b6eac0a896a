import type { TemplatedApp } from 'uWebSockets.js';
import { Server, type Socket } from 'socket.io';
import type { RedisClient } from '../../../store/redis/redis.js';
import type { Asker } from '../../../actors/runtime/asker.js';
import type { Keys } from '../../../store/redis/keys.js';
import type { Logger } from '../../../log.js';
import { emitChatEvent, lastEventId, type ChatEventHub } from '../agent/chat-events.js';
import { takeAwaited } from '../agent/client-calls.js';
import type { UcanAuthenticator } from '../../auth/ucan/index.js';
import { corsOrigins } from '../../http/cors.js';
import {
  actionCallResult,
  clientEvents,
  goesToRoom,
  serverEvents,
  serverPayloads,
  toolResult,
  type ServerEvent,
  type ServerPayload,
} from './events.js';
import { chatRef } from '../../../actors/chat/messages.js';

export interface SocketDeps {
  app: TemplatedApp;
  auth: UcanAuthenticator | undefined;
  client: Asker;
  hub: ChatEventHub;
  redis: RedisClient;
  keys: Keys;
  log: Logger;
  /** CORS_ORIGIN: the browser origins allowed, as for HTTP. */
  corsOrigin: string;
}

const now = () => new Date().toISOString();

/** What the handshake learnt: the caller, its session, and when its credential lapses (ms). */
interface SocketData {
  did: string;
  sessionId: string;
  expiresAt?: number;
}

/** The largest client answer relayed to a turn (JSON characters): a page's text fits, a flood does not. */
const MAX_RESULT_CHARS = 256 * 1024;

/** Emits a server event whose payload has its declared type (see `serverPayloads`). */
function send<E extends ServerEvent>(to: Socket, event: E, payload: ServerPayload<E>): void {
  to.emit(event, payload);
}

/**
 * socket.io on the uWebSockets.js app (namespace `/`, path `/socket.io`). A handshake needs
 * `query.sessionId` and `auth.invocation` (or `auth.ucanDelegation`), checked exactly as HTTP;
 * the caller is the token's DID and must own the session; anything else disconnects at once.
 * Each session is a room fed from the session's Redis event stream, so an event emitted by a
 * turn on any process reaches sockets on every process.
 */
export function attachSocketGateway(d: SocketDeps): { io: Server; close(): Promise<void> } {
  const { any: anyOrigin, allowed } = corsOrigins(d.corsOrigin);
  const io = new Server({
    path: '/socket.io',
    serveClient: false,
    cors: anyOrigin ? { origin: '*' } : { origin: [...allowed], credentials: true },
    // CORS binds the polling transport only; a browser's WebSocket from an origin not listed is
    // refused here (a client with no Origin header, not a browser, is not concerned).
    allowRequest: (req, done) => {
      const origin = req.headers.origin;
      done(null, anyOrigin || origin === undefined || allowed.has(origin));
    },
  });
  io.attachApp(d.app);
  /** Each session room's follower of its Redis stream (the unsubscribe, once it follows). */
  const rooms = new Map<string, Promise<() => void>>();

  io.use((socket, next) => {
    void (async () => {
      if (!d.auth) return next(new Error('the oracle is not configured (ORACLE_DID)'));
      const sessionId = socket.handshake.query.sessionId;
      if (typeof sessionId !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(sessionId)) {
        return next(new Error('sessionId query parameter is required'));
      }
      const auth = (socket.handshake.auth ?? {}) as { invocation?: unknown; ucanDelegation?: unknown };
      const result = await d.auth.authenticateHandshake(auth);
      if (!result.ok) return next(new Error(result.message));
      // The session must be the caller's (another user's is "not found", like over HTTP).
      await d.client.ask(chatRef, sessionId, { kind: 'get', ownerDid: result.did });
      const data = socket.data as SocketData;
      data.did = result.did;
      data.sessionId = sessionId;
      // A delegation is the caller's standing credential: the socket lives no longer than it. (An
      // invocation authorizes the connection itself, once; it is not a lifetime.)
      if (result.via === 'delegation' && result.expiration !== undefined) data.expiresAt = result.expiration * 1000;
      next();
    })().catch((err: unknown) => next(new Error(err instanceof Error ? err.message : 'handshake failed')));
  });

  io.on('connection', (socket: Socket) => {
    const { sessionId, expiresAt } = socket.data as SocketData;
    void socket.join(sessionId);
    const expiry =
      expiresAt === undefined
        ? undefined
        : setTimeout(
            () => {
              send(socket, 'error', { message: 'the delegation expired; connect again', sessionId, timestamp: now() });
              socket.disconnect(true);
            },
            Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1),
          );
    socket.on('ping', () => send(socket, 'pong', { timestamp: now(), sessionId }));
    socket.on('status', () =>
      send(socket, 'status', {
        connected: true,
        sessionId,
        activeSessions: rooms.size,
        totalConnections: io.engine.clientsCount,
        timestamp: now(),
      }),
    );
    // The handshake's session only (a payload naming another is ignored): back in its room,
    // following its stream, and only then `subscribed`.
    socket.on('subscribe', () => {
      void socket.join(sessionId);
      follow(sessionId).then(
        () => send(socket, 'subscribed', { sessionId, timestamp: now() }),
        () => send(socket, 'error', { message: 'could not subscribe; retry', sessionId, timestamp: now() }),
      );
    });
    socket.on('list-events', () =>
      send(socket, 'available-events', {
        clientEvents: [...clientEvents],
        serverEvents: [...serverEvents],
        sessionId,
        timestamp: now(),
      }),
    );
    // Results for a waiting turn go through the session's event stream: whichever process runs it reads them.
    socket.on('tool_result', (payload: unknown) => relay('tool_result', toolResult.safeParse(payload)));
    socket.on('action_call_result', (payload: unknown) =>
      relay('action_call_result', actionCallResult.safeParse(payload)),
    );
    // `connected` only once the room follows the session's stream: an event written after the
    // client saw `connected` is never missed.
    follow(sessionId).then(
      () => send(socket, 'connected', { message: 'connected', sessionId, timestamp: now() }),
      (err: unknown) => {
        d.log.warn({ err: String(err), sessionId }, 'socket room could not follow its session');
        socket.disconnect(true);
      },
    );
    socket.on('disconnect', () => {
      clearTimeout(expiry);
      if (io.sockets.adapter.rooms.get(sessionId)?.size) return;
      const f = rooms.get(sessionId);
      rooms.delete(sessionId);
      // f fails only when the room never followed its stream, logged as its socket connected.
      f?.then((stop) => stop()).catch(() => undefined);
    });

    function relay(event: string, parsed: { success: boolean; data?: { toolCallId: string } }): void {
      const refuse = (message: string) => send(socket, 'error', { message, sessionId, timestamp: now() });
      if (!parsed.success || !parsed.data) return refuse(`malformed ${event}`);
      const data = parsed.data;
      if (JSON.stringify(data).length > MAX_RESULT_CHARS) {
        return refuse(`${event} too large (over ${MAX_RESULT_CHARS} characters)`);
      }
      // Only the first answer to a call a turn still waits for goes on the session's stream.
      takeAwaited(d.redis, d.keys, sessionId, data.toolCallId)
        .then(async (awaited) => {
          if (!awaited)
            return refuse(`${event} for no waiting call (${data.toolCallId}): answered, timed out, or never made`);
          await emitChatEvent(d.redis, d.keys, sessionId, data.toolCallId, event, data);
        })
        .catch((err: unknown) => d.log.warn({ err: String(err) }, 'tool result not relayed'));
    }
  });

  /** Makes the session's room follow its stream (once per room); resolves when it does. */
  function follow(sessionId: string): Promise<unknown> {
    let f = rooms.get(sessionId);
    if (!f) {
      f = lastEventId(d.redis, d.keys, sessionId).then((from) =>
        d.hub.follow(sessionId, from, (e) => {
          if (!goesToRoom(e.event, e.data)) return;
          const name = (e.event === 'router.update' ? 'router_update' : e.event) as ServerEvent;
          const payload = serverPayloads[name].safeParse({ ...e.data, sessionId, requestId: e.requestId });
          if (!payload.success) {
            d.log.warn(
              { event: e.event, sessionId, id: e.id },
              'agent event does not fit its payload type; not forwarded',
            );
            return;
          }
          io.to(sessionId).emit(name, payload.data);
        }),
      );
      rooms.set(sessionId, f);
      // A failed follow is not kept, so the next socket tries again; each caller logs the failure.
      f.catch(() => rooms.delete(sessionId));
    }
    return f;
  }

  return {
    io,
    async close() {
      // f fails only when the room never followed its stream, logged as its socket connected.
      for (const f of rooms.values()) f.then((stop) => stop()).catch(() => undefined);
      rooms.clear();
      await new Promise<void>((resolve) => void io.close(() => resolve()));
    },
  };
}
