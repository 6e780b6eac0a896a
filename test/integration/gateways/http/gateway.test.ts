import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey } from '../../../support/api.js';
import { eventually, isolated, type Isolated, onCluster } from '../../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../../support/tcp-proxy.js';

// Its outages go through a TCP proxy in front of one Redis; on a cluster, redis-cluster-failover.test.ts.
describe.skipIf(onCluster)('HTTP gateway', () => {
  let env: Isolated;
  let hearth: Hearth;
  let redisProxy: TcpProxy;
  let pgProxy: TcpProxy;
  let base: string;

  beforeAll(async () => {
    env = await isolated();
    const redis = viaProxy(env.redisUrl);
    const pg = viaProxy(env.databaseUrl);
    redisProxy = await startProxy(redis.host, redis.port);
    pgProxy = await startProxy(pg.host, pg.port);
    const config = env.config({
      REDIS_URL: viaProxy(env.redisUrl, redisProxy.port).url,
      DATABASE_URL: viaProxy(env.databaseUrl, pgProxy.port).url,
      HEARTH_DIAGNOSTICS: 'true',
      MAX_BODY_BYTES: '1024',
      ACTOR_PARTITIONS: '2',
      HEARTH_ADMIN_KEY: adminKey,
      REQUEST_DEADLINE_MS: '1500',
      // Slower than the deadline, so that the deadline's own answer is seen below (the watch's
      // answer within a second is postgres-outage.test.ts's).
      DATABASE_PROBE_TIMEOUT_MS: '5000',
    });
    hearth = await startHearth(config, env.log);
    base = `http://127.0.0.1:${hearth.port}`;
  });

  afterAll(async () => {
    await hearth.close();
    await redisProxy.close();
    await pgProxy.close();
    await env.cleanup();
  });

  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${base}${path}`, { method: 'POST', body, headers });

  it('GET /health pings Redis and Postgres', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ok', checks: { redis: 'ok', postgres: 'ok' } });
    expect(new Date(String(body.timestamp)).toString()).not.toBe('Invalid Date');
  });

  it('echoes x-request-id as X-Request-Id, and makes one when absent or unsafe', async () => {
    const given = await fetch(`${base}/health`, { headers: { 'x-request-id': 'req-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-123');
    const made = await fetch(`${base}/health`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await fetch(`${base}/health`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 and a wrong method with 405 and Allow', async () => {
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      statusCode: 404,
      message: 'no route for GET /nowhere',
      error: { code: 'NOT_FOUND', message: 'no route for GET /nowhere' },
    });
    const wrong = await fetch(`${base}/health`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    // Wrong methods on made-up paths are counted under the route's pattern, not one label each.
    for (const id of ['a1', 'b2', 'c3'])
      expect((await fetch(`${base}/v1/vouchers/${id}`, { method: 'PUT' })).status).toBe(405);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/hearth_http_requests_total\{method="PUT",route="\/v1\/vouchers\/:id",status="405"\} 3/);
    expect(metrics).not.toMatch(/route="\/v1\/vouchers\/a1"/);
  });

  it('routes an ask through the runtime and back', async () => {
    const res = await post('/v1/diagnostics/echo', JSON.stringify({ key: 'g1', payload: { hello: 'world' } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ payload: { hello: 'world' }, echoes: 1 });
  });

  it('refuses bad bodies with clear 4xx errors', async () => {
    const badJson = await post('/v1/diagnostics/echo', '{"key":');
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: { code: string } }).error.code).toBe('INVALID_JSON');

    const wrongType = await post('/v1/diagnostics/echo', 'key=a', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(wrongType.status).toBe(415);

    const unknownField = await post('/v1/diagnostics/echo', JSON.stringify({ key: 'a', payload: 1, extra: true }));
    expect(unknownField.status).toBe(400);
    const body = (await unknownField.json()) as { error: { code: string; details: unknown[] } };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details.length).toBeGreaterThan(0);

    const huge = await post('/v1/diagnostics/echo', JSON.stringify({ key: 'a', payload: 'x'.repeat(5_000) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe('BODY_TOO_LARGE');

    const badParam = await post('/v1/diagnostics/counters/%E0%A4%A', '{}');
    expect(badParam.status).toBe(404);
  });

  it('serves Prometheus metrics with request counts, commit batches and mailbox lag', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/hearth_http_requests_total\{method="POST",route="\/v1\/diagnostics\/echo",status="200"\} 1/);
    expect(text).toMatch(/hearth_commit_batch_size_count\{type="echo"\} \d+/);
    expect(text).toMatch(/hearth_mailbox_lag\{type="echo",partition="0"\} 0/);
    expect(text).toMatch(/hearth_asks_timed_out_total/);
  });

  it('answers 503 within a second when Redis is down, and recovers when it is back', async () => {
    redisProxy.cut();
    const started = Date.now();
    const res = await post('/v1/diagnostics/echo', JSON.stringify({ key: 'down', payload: 1 }));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeLessThan(1_000);
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    const redisCheck = ((await health.json()) as { checks: Record<string, string> }).checks.redis;
    expect(redisCheck).toMatch(/^unreachable/);
    expect(redisCheck).not.toContain('127.0.0.1');

    redisProxy.restore();
    const back = await eventually(
      () => post('/v1/diagnostics/echo', JSON.stringify({ key: 'back', payload: 1 })),
      (r) => r.status === 200,
      10_000,
    );
    expect(back.status).toBe(200);
  });

  it('reports 503 naming postgres when Postgres is unreachable', async () => {
    pgProxy.cut();
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('error');
    expect(body.checks.redis).toBe('ok');
    expect(body.checks.postgres).toMatch(/^unreachable/);
    // A public route: the cause's code at most, never the driver's message with hosts and ports.
    expect(body.checks.postgres).toMatch(/^unreachable(: [A-Z0-9_]+|: no answer within \d+ ms)?$/);
    expect(body.checks.postgres).not.toContain('127.0.0.1');
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1:\d+/); // nor in the ledger part beside it
    pgProxy.restore();
    const back = await eventually(
      () => fetch(`${base}/health`),
      (r) => r.status === 200,
      6_000,
    );
    expect(back.status).toBe(200);
  });

  it('commits asks again once PostgreSQL is back: the commit connections reconnect', async () => {
    const echo = (payload: number) => post('/v1/diagnostics/echo', JSON.stringify({ key: 'pg-back', payload }));
    expect((await echo(0)).status).toBe(200);
    // Every connection drops, the worker's own commit connections with the pool's.
    pgProxy.cut();
    expect((await echo(1)).status).toBeGreaterThanOrEqual(500);
    pgProxy.restore();
    let asked = 0;
    const res = await eventually(
      () => {
        asked++;
        return echo(2);
      },
      (r) => r.status === 200,
      6_000,
    );
    expect(res.status).toBe(200);
    // The ask that timed out applied too once PostgreSQL was back (its gateway said it may), and
    // before the last one (same key, stream order); a retried ask that timed out may have applied
    // as well. Each applies at most once (crash-recovery.test.ts counts that exactly).
    const { echoes } = (await res.json()) as { echoes: number };
    expect(echoes).toBeGreaterThanOrEqual(3);
    expect(echoes).toBeLessThanOrEqual(2 + asked);
  });

  const listKeys = () => fetch(`${base}/v1/api-keys`, { headers: { authorization: `Bearer ${adminKey}` } });

  async function untilPostgresBack(): Promise<void> {
    expect((await eventually(listKeys, (r) => r.status === 200, 10_000)).status).toBe(200);
  }

  it('answers a /v1 route 503 UNAVAILABLE with Retry-After, not 500, when PostgreSQL refuses connections', async () => {
    expect((await listKeys()).status).toBe(200);
    pgProxy.cut();
    const started = Date.now();
    const res = await listKeys();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(3_000);
    pgProxy.restore();
    await untilPostgresBack();
  });

  it('answers 503 at REQUEST_DEADLINE_MS when PostgreSQL silently stops answering before its watch notices, instead of hanging', async () => {
    pgProxy.stall();
    const started = Date.now();
    const res = await listKeys();
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('UNAVAILABLE');
    expect(body.error.message).toMatch(/no answer within 1.5 s/);
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(5_000);
    pgProxy.restore();
    await untilPostgresBack();
  });
});
