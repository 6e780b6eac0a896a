import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { connectRedis, createRedis, type RedisClient } from '../../../../src/store/redis/redis.js';
import { eventually, onCluster } from '../../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../../support/tcp-proxy.js';

/** A pino logger whose lines land in `lines`, parsed. */
function capturingLogger(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

const answers = (redis: RedisClient): Promise<void> =>
  eventually(
    () => redis.ping().catch(() => 'down'),
    (pong) => pong === 'PONG',
    10_000,
    50,
  ).then(() => undefined);

// One connection's outage through a proxy; a cluster's node errors are logged per node (redis.ts).
describe.skipIf(onCluster)('a Redis connection that goes down and comes back', () => {
  let proxy: TcpProxy | undefined;
  let redis: RedisClient | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    redis?.disconnect();
    await proxy?.close();
  });

  it('says so in the JSON log once each way (and once per new cause), and nothing on stderr, however many retries', async () => {
    const redisUrl = inject('redisUrl');
    const target = viaProxy(redisUrl);
    proxy = await startProxy(target.host, target.port);
    const url = viaProxy(redisUrl, proxy.port).url;
    const stderr = vi.spyOn(console, 'error');
    const { log, lines } = capturingLogger();
    redis = await connectRedis(createRedis(url, 'outage-test', { log }), url);
    let retries = 0;
    redis.on('reconnecting', () => retries++);
    proxy.cut();
    // Down until three retries were refused (the fourth is scheduled; they back off 100, 200, 400 ms).
    const scheduled = await eventually(
      () => Promise.resolve(retries),
      (n) => n >= 4,
      10_000,
      20,
    );
    expect(scheduled).toBeGreaterThanOrEqual(4);
    proxy.restore();
    await answers(redis);
    const outage = lines.filter((l) => l.connection === 'outage-test');
    expect(outage[0]?.msg).toBe('Redis connection lost; reconnecting');
    expect(outage.at(-1)?.msg).toBe('Redis connection back');
    const between = outage.slice(1, -1);
    expect(between.every((l) => l.msg === 'Redis still unreachable')).toBe(true);
    // Only a change of cause is worth another line: never the same cause twice in a row.
    const causes = outage.slice(0, -1).map((l) => l.err);
    expect(causes.filter((c, i) => i > 0 && c === causes[i - 1])).toEqual([]);
    expect(stderr.mock.calls.filter((c) => String(c[0]).includes('[ioredis]'))).toEqual([]);
  });

  it('logs a connection closed cleanly by the server (CLIENT KILL) and its return', async () => {
    const url = inject('redisUrl');
    const { log, lines } = capturingLogger();
    redis = await connectRedis(createRedis(url, 'killed-test', { log }), url);
    const id = await redis.client('ID');
    const admin = await connectRedis(createRedis(url, 'killer'), url);
    try {
      await admin.client('KILL', 'ID', String(id));
    } finally {
      admin.disconnect();
    }
    await eventually(
      () => Promise.resolve(lines.length),
      (n) => n >= 2,
      10_000,
      20,
    );
    await answers(redis);
    expect(lines.map((l) => [l.connection, l.msg])).toEqual([
      ['killed-test', 'Redis connection lost; reconnecting'],
      ['killed-test', 'Redis connection back'],
    ]);
  });
});
