import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { adminKey } from '../../support/api.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../support/tcp-proxy.js';

/**
 * PostgreSQL down, in its two shapes (connections refused; a network that drops packets, where
 * connects and queries hang), under 32 clients: every request that needs it is answered 503
 * UNAVAILABLE with Retry-After within a second for as long as it is down (never after the 30 s
 * request deadline), and the service answers again within a second of its return, no restart.
 */
interface Outcome {
  status: number;
  ms: number;
  retryAfter: string | null;
  code: string | undefined;
  text: string;
}

const CLIENTS = 32;

describe('PostgreSQL outage: 503 within a second, recovery within a second', () => {
  let env: Isolated;
  let hearth: Hearth;
  let pgProxy: TcpProxy;
  let base: string;
  let key = '';

  beforeAll(async () => {
    env = await isolated();
    const pg = viaProxy(env.databaseUrl);
    pgProxy = await startProxy(pg.host, pg.port);
    hearth = await startHearth(
      env.config({
        DATABASE_URL: viaProxy(env.databaseUrl, pgProxy.port).url,
        HEARTH_DIAGNOSTICS: 'true',
        ACTOR_PARTITIONS: '2',
        // The default, which the harness raises for files that do not test the watch.
        DATABASE_PROBE_TIMEOUT_MS: '500',
        HEARTH_ADMIN_KEY: adminKey,
        // The default: the answers below must not come from the deadline.
        REQUEST_DEADLINE_MS: '30000',
      }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
    const made = await fetch(`${base}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'implementer' }),
    });
    key = ((await made.json()) as { key: string }).key;
  });

  afterAll(async () => {
    await hearth.close();
    await pgProxy.close();
    await env.cleanup();
  });

  /** Requests that need PostgreSQL: a gateway read, an ask to an actor (its worker commits), a USSD hop. */
  const requests: Record<string, (i: number) => Promise<Response>> = {
    read: () => fetch(`${base}/v1/vouchers?limit=1`, { headers: { authorization: `Bearer ${key}` } }),
    ask: (i) =>
      fetch(`${base}/v1/diagnostics/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: `pg-${i % 8}`, payload: i }),
      }),
    ussd: (i) =>
      fetch(`${base}/api/ussd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: `pg-outage-${i}`, phoneNumber: '+260971000001', text: '' }),
      }),
  };

  async function timed(kind: string, i: number): Promise<Outcome> {
    const started = performance.now();
    const res = await requests[kind]!(i);
    const text = await res.text();
    const ms = performance.now() - started;
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    } catch {
      code = undefined;
    }
    return { status: res.status, ms, retryAfter: res.headers.get('retry-after'), code, text };
  }

  /** CLIENTS clients, each sending one request after another of every kind, for `ms`. */
  async function load(ms: number): Promise<Map<string, Outcome[]>> {
    const out = new Map<string, Outcome[]>(Object.keys(requests).map((k) => [k, []]));
    const until = Date.now() + ms;
    let n = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const kinds = Object.keys(requests);
        for (let j = c; Date.now() < until; j++) {
          const kind = kinds[j % kinds.length]!;
          out.get(kind)!.push(await timed(kind, n++));
        }
      }),
    );
    return out;
  }

  /** How long after now every kind of request is answered as usual again. */
  async function recoveryMs(): Promise<Record<string, number>> {
    const started = performance.now();
    const took: Record<string, number> = {};
    await Promise.all(
      Object.keys(requests).map(async (kind) => {
        const ok = (r: Outcome) => (kind === 'ussd' ? r.status === 200 && r.text.startsWith('CON') : r.status === 200);
        let i = 0;
        const r = await eventually(() => timed(kind, 10_000 + i++), ok, 5_000, 20);
        expect(ok(r), `${kind} still ${r.status} ${r.text.slice(0, 80)}`).toBe(true);
        took[kind] = performance.now() - started;
      }),
    );
    return took;
  }

  async function expectOutageAnswered(): Promise<void> {
    const seen = await load(3_000);
    for (const [kind, outcomes] of seen) {
      expect(outcomes.length, kind).toBeGreaterThan(10);
      const slowest = Math.max(...outcomes.map((o) => o.ms));
      expect(slowest, `${kind}: slowest answer`).toBeLessThan(1_000);
      for (const o of outcomes) {
        if (kind === 'ussd') {
          // An aggregator is answered 200: an END line the phone can show, or the menu when the
          // hop needed nothing from PostgreSQL (an unregistered phone's directory entry is cached).
          expect(o.status, kind).toBe(200);
          expect(o.text).toMatch(/^(END|CON) /);
        } else {
          expect({ kind, status: o.status, code: o.code, retryAfter: o.retryAfter }).toEqual({
            kind,
            status: 503,
            code: 'UNAVAILABLE',
            retryAfter: '1',
          });
        }
      }
    }
    const ended = seen.get('ussd')!.filter((o) => o.text.startsWith('END '));
    expect(ended.length).toBeGreaterThan(0);
    // Operations routes stay served, and /health names the part that is down at once.
    const started = performance.now();
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { checks: { postgres: string } }).checks.postgres).toMatch(/^unreachable/);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await fetch(`${base}/docs/openapi.json`)).status).toBe(200);
  }

  it('answers as usual before the outage', async () => {
    for (const kind of Object.keys(requests)) {
      const r = await timed(kind, 0);
      expect(r.status, `${kind}: ${r.text.slice(0, 80)}`).toBe(200);
    }
  });

  it('refused connections: 503 within a second under 32 clients; back within a second', async () => {
    pgProxy.cut();
    await expectOutageAnswered();
    pgProxy.restore();
    const took = await recoveryMs();
    process.stdout.write(`postgres back: answered as usual after ${JSON.stringify(took)} ms\n`);
    for (const [kind, ms] of Object.entries(took)) expect(ms, `${kind} recovered after`).toBeLessThan(1_000);
  }, 30_000);

  it('a network that drops packets (connects and queries hang): 503 within a second; back within a second', async () => {
    pgProxy.stall();
    await expectOutageAnswered();
    pgProxy.restore();
    const took = await recoveryMs();
    process.stdout.write(`postgres back: answered as usual after ${JSON.stringify(took)} ms\n`);
    for (const [kind, ms] of Object.entries(took)) expect(ms, `${kind} recovered after`).toBeLessThan(1_000);
  }, 30_000);
});
