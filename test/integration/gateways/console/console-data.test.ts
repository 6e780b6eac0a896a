import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { LiveSessions } from '../../../../src/gateways/ussd/live-sessions.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';

const PARTITIONS = 2;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
type Body = any;

/** Reads a server-sent event stream until `until` says stop (or 10 s pass); the frames seen. */
async function readEvents(
  url: string,
  key: string,
  until: (events: Array<{ event: string; data: Body }>) => boolean,
  onOpen: () => Promise<void> = async () => {},
): Promise<{ status: number; events: Array<{ event: string; data: Body }> }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
  const events: Array<{ event: string; data: Body }> = [];
  if (!res.ok) {
    clearTimeout(timer);
    return { status: res.status, events };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let opened = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      if (!opened && events.some((e) => e.event === 'ready' || e.event === 'start')) {
        opened = true;
        await onOpen();
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { status: res.status, events };
}

/** The console's data routes (issue 25): admin only, each read as the console pages read it. */
describe('console data', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let implementerKey = '';

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: String(PARTITIONS), HEARTH_DIAGNOSTICS: 'true' }),
      env.log,
    );
    a = api(hearth.port);
    implementerKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key as string;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('serves the page and its files with a strict Content-Security-Policy, no key needed', async () => {
    const page = await fetch(`${a.base}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(await page.text()).toContain('/console/app.js');
    const chart = await fetch(`${a.base}/console/uplot.esm.js`);
    expect(chart.status).toBe(200);
    expect(chart.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${a.base}/console/app.js`)).status).toBe(200);
    expect((await fetch(`${a.base}/console/nothing.js`)).status).toBe(404);
    expect((await fetch(`${a.base}/console/..%2Fpackage.json`)).status).toBe(404);
  });

  it('answers its data to admin keys only', async () => {
    for (const path of ['/v1/operator/overview', '/v1/operator/actors', '/v1/operator/ussd']) {
      expect((await a.call('GET', path)).status).toBe(200);
      expect((await a.call('GET', path, { key: implementerKey })).status).toBe(403);
      expect((await a.call('GET', path, { key: '' })).status).toBe(401);
    }
    expect((await a.call('GET', '/v1/operator/tail?type=counter', { key: implementerKey })).status).toBe(403);
    expect((await a.call('GET', '/v1/operator/ledger/verify', { key: implementerKey })).status).toBe(403);
  });

  it('names the PostgreSQL primary it writes to on the overview', async () => {
    const port = Number(new URL(env.databaseUrl).port || 5432);
    const overview = await eventually(
      async () => (await a.call('GET', '/v1/operator/overview')).body,
      (o) => o.postgres.primary !== null,
    );
    expect(overview.postgres).toEqual({
      primary: expect.stringMatching(new RegExp(`:${port}$`)),
      position: 1,
      down: null,
    });
  });

  it('shows every partition with its owner, epoch and mailbox, and the workers', async () => {
    await a.call('POST', '/v1/diagnostics/counters/console-a', { body: { by: 2 } });
    const table = await eventually(
      async () => (await a.call('GET', '/v1/operator/actors')).body,
      (t) => t.types.find((x: Body) => x.type === 'counter')?.partitions.every((p: Body) => p.owner !== null),
    );
    const counter = table.types.find((x: Body) => x.type === 'counter');
    expect(counter.partitions).toHaveLength(PARTITIONS);
    const mine = counter.partitions[partitionOf('console-a', PARTITIONS)];
    expect(mine.epoch).toBeGreaterThanOrEqual(1);
    expect(mine.mailbox).toBeGreaterThanOrEqual(1);
    expect(mine.leaseMs).toBeGreaterThan(0);
    expect(table.workers.length).toBeGreaterThanOrEqual(1);
    expect(table.workers.map((w: Body) => w.id)).toContain(mine.owner);
  });

  it('tails a partition: entries as they arrive, secrets redacted, filtered by key', async () => {
    const key = 'console-tail';
    const partition = partitionOf(key, PARTITIONS);
    const url = `${a.base}/v1/operator/tail?type=counter&key=${key}`;
    const { status, events } = await readEvents(
      url,
      adminKey,
      (ev) => ev.filter((e) => e.event === 'entry').length >= 2,
      async () => {
        await a.call('POST', '/v1/diagnostics/counters/console-other', { body: { by: 1 } });
        await a.call('POST', `/v1/diagnostics/counters/${key}`, { body: { by: 3 } });
        // A body with a secret-named field, as a mailbox could hold one.
        await env.redis.xadd(
          env.keys.mailbox('counter', partition),
          '*',
          ...encodeEntry({
            key,
            kind: 'get',
            body: JSON.stringify({ kind: 'get', pin: '1234' }),
            reply: '',
            corr: '',
            ts: 0,
          }),
        );
      },
    );
    expect(status).toBe(200);
    expect(events[0]).toMatchObject({ event: 'ready', data: { type: 'counter', partitions: [partition] } });
    const entries = events.filter((e) => e.event === 'entry').map((e) => e.data);
    expect(entries.map((e) => e.key)).toEqual([key, key]);
    expect(entries[0]).toMatchObject({ type: 'counter', partition, kind: 'add', body: { kind: 'add', by: 3 } });
    expect(entries[1].body).toEqual({ kind: 'get', pin: '[redacted]' });
    expect((await a.call('GET', '/v1/operator/tail?type=nothing')).status).toBe(400);
    expect((await a.call('GET', `/v1/operator/tail?type=counter&partition=${PARTITIONS}`)).status).toBe(400);
  });

  it('lists live USSD sessions with the phone numbers masked', async () => {
    const live = new LiveSessions(env.redis, env.keys, 180_000);
    const now = new Date().toISOString();
    await live.touch(
      {
        sessionId: 'console-s1',
        phoneNumber: '+260971234567',
        serviceCode: '*123#',
        state: 'menu',
        startedAt: now,
        lastActivityAt: now,
      },
      false,
    );
    const view = (await a.call('GET', '/v1/operator/ussd')).body;
    const session = view.live.sessions.find((s: Body) => s.sessionId === 'console-s1');
    expect(session).toMatchObject({ phone: '+260•••••••67', serviceCode: '*123#', state: 'menu' });
    expect(JSON.stringify(view)).not.toContain('971234567');
    expect(view.live.count).toBeGreaterThanOrEqual(1);
    expect(Array.isArray(view.outcomes)).toBe(true);
  });

  it('records every key issued or revoked, with who did it and never the secret', async () => {
    const created = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer', label: 'audited' } })).body;
    expect((await a.call('DELETE', `/v1/api-keys/${created.id}`)).status).toBe(200);
    const actions = (await a.call('GET', '/v1/operator-actions')).body.items as Body[];
    expect(actions.slice(0, 2)).toMatchObject([
      { action: 'api-key.revoke', target: created.id, keyId: 'bootstrap', detail: { role: 'implementer' } },
      {
        action: 'api-key.create',
        target: created.id,
        keyId: 'bootstrap',
        detail: { role: 'implementer', label: 'audited' },
      },
    ]);
    expect(JSON.stringify(actions)).not.toContain(created.key);
  });

  it('verifies the ledger with progress, records who ran it, and runs one at a time', async () => {
    const { status, events } = await readEvents(`${a.base}/v1/operator/ledger/verify`, adminKey, (ev) =>
      ev.some((e) => e.event === 'result' || e.event === 'error'),
    );
    expect(status).toBe(200);
    expect(events[0]?.event).toBe('start');
    const result = events.find((e) => e.event === 'result')?.data;
    expect(result).toMatchObject({ ok: true });
    const actions = (await a.call('GET', '/v1/operator-actions')).body.items;
    expect(actions[0]).toMatchObject({ action: 'ledger.verify', target: 'ledger', keyId: 'bootstrap' });
  });
});
