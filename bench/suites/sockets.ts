import { createKeys } from '../../src/store/redis/keys.js';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { io, type Socket } from 'socket.io-client';
import { startChild } from '../lib/child.js';
import type { BenchEnv } from '../lib/env.js';
import { startGateway } from '../lib/gateway.js';
import { percentileOf, rssKb } from '../lib/measure.js';
import { oracleIdentity, ucanUser } from '../lib/ucan.js';
import { chatKeys } from '../../src/gateways/oracle/chat-keys.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export interface SocketSide {
  /** Connections open at once (asked for / made). */
  asked: number;
  connected: number;
  connectSeconds: number;
  kbPerConnection: number;
  /** One busy room: events × sockets delivered, per second, and each event's latency. */
  roomSize: number;
  events: number;
  deliveriesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  failed: number;
}

export interface SocketsResult {
  hearth: SocketSide;
  bare: SocketSide;
}

/** Sockets opened at once while connecting (a wave), so handshakes queue in neither process. */
const WAVE = 250;
/** How long one event burst may take to be delivered before the bench gives up on it. */
const BURST_TIMEOUT_MS = 60_000;

type Open = (i: number) => Socket;

/** Opens `n` sockets in waves; resolves with the ones that got `connected` (by index), and the time taken. */
async function openAll(
  n: number,
  open: Open,
): Promise<{ sockets: Map<number, Socket>; failed: number; seconds: number }> {
  const sockets = new Map<number, Socket>();
  let failed = 0;
  const started = performance.now();
  for (let i = 0; i < n; i += WAVE) {
    const wave = Array.from({ length: Math.min(WAVE, n - i) }, (_, k) => {
      const socket = open(i + k);
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          failed++;
          socket.disconnect();
          resolve();
        }, 30_000);
        socket.once('connected', () => {
          clearTimeout(timer);
          sockets.set(i + k, socket);
          resolve();
        });
        socket.once('connect_error', () => {
          clearTimeout(timer);
          failed++;
          resolve();
        });
      });
    });
    await Promise.all(wave);
    if ((i + WAVE) % 2_000 === 0) process.stderr.write(`bench:    ${sockets.size} connected\n`);
  }
  return { sockets, failed, seconds: (performance.now() - started) / 1000 };
}

/** Sends `events` events to a room (`fire`) and waits until each socket in it has all of them. */
async function burst(room: Socket[], events: number, fire: () => Promise<void>) {
  const latencies: number[] = [];
  let delivered = 0;
  const expected = room.length * events;
  const all = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${delivered}/${expected} delivered`)), BURST_TIMEOUT_MS);
    for (const s of room) {
      s.on('tool_call', (p: { t: number }) => {
        latencies.push(Date.now() - p.t);
        if (++delivered === expected) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
  const started = performance.now();
  await fire();
  await all;
  const seconds = (performance.now() - started) / 1000;
  for (const s of room) s.off('tool_call');
  return {
    deliveriesPerSecond: expected / seconds,
    p50: percentileOf(latencies, 50),
    p99: percentileOf(latencies, 99),
  };
}

async function measure(
  pid: number,
  n: number,
  rooms: number,
  events: number,
  open: Open,
  fire: () => Promise<void>,
): Promise<SocketSide> {
  const before = rssKb(pid);
  const { sockets, failed, seconds } = await openAll(n, open);
  await new Promise((r) => setTimeout(r, 1_000)); // let the server settle before reading its memory
  const after = rssKb(pid);
  try {
    // The busy room: the sockets opened into room 0 (socket i joins room i % rooms).
    const room = [...sockets].filter(([i]) => i % rooms === 0).map(([, s]) => s);
    const b = await burst(room, events, fire);
    return {
      asked: n,
      connected: sockets.size,
      connectSeconds: seconds,
      kbPerConnection: (after - before) / Math.max(1, sockets.size),
      roomSize: room.length,
      events,
      deliveriesPerSecond: b.deliveriesPerSecond,
      latencyP50Ms: b.p50,
      latencyP99Ms: b.p99,
      failed,
    };
  } finally {
    for (const s of sockets.values()) s.disconnect();
  }
}

/**
 * `n` socket.io connections held at once on a hearth gateway process (each handshake a UCAN
 * delegation and a session-ownership check, spread over rooms of `roomSize`), the gateway's
 * memory per connection, and the fan-out of `events` agent events written to one session's
 * Redis stream to that busy room. The baseline is a bare socket.io server on uWebSockets.js
 * (no auth, no Redis) measured the same way, in the same run.
 */
export async function socketConnections(
  env: BenchEnv,
  n: number,
  roomSize: number,
  events: number,
): Promise<SocketsResult> {
  const rooms = Math.ceil(n / roomSize);
  const oracleDid = await oracleIdentity();
  const gateway = await startGateway(env, { ORACLE_DID: oracleDid, ASK_MAX_IN_FLIGHT: '100000' });
  const redis = new Redis(env.redisUrl);
  let hearth: SocketSide;
  try {
    const user = await ucanUser(oracleDid);
    const sessions: string[] = [];
    for (let r = 0; r < rooms; r++) {
      const res = await fetch(`${gateway.base}/sessions`, { method: 'POST', headers: await user.headers() });
      sessions.push(((await res.json()) as { sessionId: string }).sessionId);
    }
    // A delegation is not single-use (an invocation is), so one serves every socket.
    const delegation = await user.delegation();
    const busy = sessions[0]!;
    hearth = await measure(
      gateway.pid,
      n,
      rooms,
      events,
      (i) =>
        io(gateway.base, {
          path: '/socket.io',
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
          query: { sessionId: sessions[i % rooms]! },
          auth: { ucanDelegation: delegation },
        }),
      async () => {
        // What a turn does: events on the session's stream, read by the gateway's hub.
        const p = redis.pipeline();
        for (let i = 0; i < events; i++) {
          const data = JSON.stringify({ i, t: Date.now(), toolName: 'bench', status: 'done' });
          p.xadd(
            chatKeys.events(createKeys(env.prefix), busy),
            '*',
            'requestId',
            'bench',
            'event',
            'tool_call',
            'data',
            data,
          );
        }
        await p.exec();
      },
    );
  } finally {
    redis.disconnect();
    await gateway.stop();
  }

  const server = startChild(here('../servers/socketio-bare.js'), {}, (l) => l.ready === true);
  let bare: SocketSide;
  try {
    const { port } = await server.ready;
    const url = `http://127.0.0.1:${String(port)}`;
    let trigger: Socket | undefined;
    bare = await measure(
      server.proc.pid ?? 0,
      n,
      rooms,
      events,
      (i) => {
        const socket = io(url, {
          path: '/socket.io',
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
          query: { room: `r${i % rooms}` },
        });
        trigger ??= socket;
        return socket;
      },
      () => {
        trigger?.emit('burst', { n: events });
        return Promise.resolve();
      },
    );
  } finally {
    await server.stop();
  }
  return { hearth, bare };
}
