import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { connectRedis, createRedis } from '../../src/actors/runtime/redis.js';
import { eventually } from '../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../support/tcp-proxy.js';

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

describe('a Redis connection that goes down and comes back', () => {
  let proxy: TcpProxy | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    await proxy?.close();
  });

  it('says so once in the JSON log each way, and nothing on stderr, however many retries', async () => {
    const redisUrl = inject('redisUrl');
    const target = viaProxy(redisUrl);
    proxy = await startProxy(target.host, target.port);
    const url = viaProxy(redisUrl, proxy.port).url;
    const stderr = vi.spyOn(console, 'error');
    const { log, lines } = capturingLogger();
    const redis = await connectRedis(createRedis(url, 'outage-test', { log }), url);
    try {
      proxy.cut();
      // Retries back off 50, 100, 200 … ms: well over three attempts in 1.5 s.
      await new Promise((r) => setTimeout(r, 1_500));
      proxy.restore();
      await eventually(
        () => redis.ping().catch(() => 'down'),
        (pong) => pong === 'PONG',
        10_000,
        50,
      );
      const outage = lines.filter((l) => l.connection === 'outage-test');
      expect(outage.map((l) => l.msg)).toEqual(['Redis connection lost; reconnecting', 'Redis connection back']);
      expect(stderr.mock.calls.filter((c) => String(c[0]).includes('[ioredis]'))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
