import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';

const PARTITIONS = 2;

/** Operators' dead letters over the API (issue 25): list, inspect, replay, discard, all recorded. */
describe('dead letters for operators', () => {
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

  /** A dead letter as a worker writes it (mailbox-ops.ts): the entry, where it was, why it failed. */
  async function deadLetter(
    key: string,
    body: Record<string, unknown>,
    error: string,
  ): Promise<{ partition: number; id: string }> {
    const partition = partitionOf(key, PARTITIONS);
    const mailbox = env.keys.mailbox('counter', partition);
    const entry = encodeEntry({
      key,
      kind: String(body.kind),
      body: JSON.stringify(body),
      reply: '',
      corr: '',
      ts: Date.now(),
    });
    const id = await env.redis.xadd(
      env.keys.deadLetter('counter', partition),
      '*',
      ...['stream', mailbox, 'id', '1-0', ...entry, 'error', error, 'worker', 'w-test'],
    );
    return { partition, id: id! };
  }

  it('lists and shows dead letters to admins only, with secrets redacted', async () => {
    const { partition, id } = await deadLetter(
      'dl-secret',
      { kind: 'add', by: 1, pinMac: 'abc123', nested: { token: 't' } },
      'refused',
    );
    const list = await a.call('GET', '/v1/dead-letters?type=counter');
    expect(list.status).toBe(200);
    const item = (list.body.items as Array<Record<string, unknown>>).find((x) => x.id === id);
    expect(item).toMatchObject({
      type: 'counter',
      partition,
      key: 'dl-secret',
      kind: 'add',
      error: 'refused',
      worker: 'w-test',
    });
    const one = await a.call('GET', `/v1/dead-letters/counter/${partition}/${id}`);
    expect(one.body.body).toEqual({ kind: 'add', by: 1, pinMac: '[redacted]', nested: { token: '[redacted]' } });
    expect(JSON.stringify(one.body)).not.toContain('abc123');
    expect((await a.call('GET', '/v1/dead-letters', { key: implementerKey })).status).toBe(403);
    expect((await a.call('GET', '/v1/dead-letters?type=nothing')).status).toBe(400);
    expect((await a.call('GET', `/v1/dead-letters/counter/${PARTITIONS}/${id}`)).status).toBe(400);
    expect((await a.call('GET', `/v1/dead-letters/counter/${partition}/1-1`)).status).toBe(404);
  });

  it('replays a dead letter to its mailbox, where it is applied, once', async () => {
    const { partition, id } = await deadLetter('dl-replay', { kind: 'add', by: 5 }, 'PostgreSQL was down');
    const replay = await a.call('POST', '/v1/dead-letters/replay', {
      body: { items: [{ type: 'counter', partition, id }] },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.results).toEqual([
      { type: 'counter', partition, id, status: 'replayed', messageId: expect.stringMatching(/^\d+-\d+$/) },
    ]);
    const counter = async () => (await a.call('GET', '/v1/diagnostics/counters/dl-replay')).body as { count?: number };
    expect(await eventually(counter, (c) => c.count === 5, 10_000, 50)).toMatchObject({ count: 5, applied: 1 });
    const again = await a.call('POST', '/v1/dead-letters/replay', {
      body: { items: [{ type: 'counter', partition, id }] },
    });
    expect(again.body.results[0].status).toBe('gone');
    expect(await counter()).toMatchObject({ count: 5, applied: 1 });
  });

  it('discards in bulk, and records every change with who made it', async () => {
    const one = await deadLetter('dl-gone-1', { kind: 'fail' }, 'boom');
    const two = await deadLetter('dl-gone-2', { kind: 'fail' }, 'boom');
    const r = await a.call('POST', '/v1/dead-letters/discard', {
      body: { items: [one, two].map((x) => ({ type: 'counter', ...x })) },
    });
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(['discarded', 'discarded']);
    const left = (await a.call('GET', '/v1/dead-letters?type=counter&limit=500')).body.items as Array<{ id: string }>;
    expect(left.map((x) => x.id)).not.toContain(one.id);
    expect((await a.call('POST', '/v1/dead-letters/discard', { body: { items: [] } })).status).toBe(400);
    const actions = (await a.call('GET', '/v1/operator-actions')).body.items as Array<Record<string, unknown>>;
    expect(actions.map((x) => x.action)).toEqual(expect.arrayContaining(['dead-letter.replay', 'dead-letter.discard']));
    expect(actions.find((x) => x.target === `counter/${two.partition}/${two.id}`)).toMatchObject({
      action: 'dead-letter.discard',
      keyId: expect.any(String),
      at: expect.any(String),
    });
    expect(JSON.stringify(actions)).not.toContain(adminKey);
  });

  it('exports the dead letters and mailbox lag from the worker that owns them only, with Node metrics', async () => {
    await deadLetter('dl-metric', { kind: 'fail' }, 'boom');
    const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const text = await scrape(hearth.port);
    const waiting = Number(/^hearth_dead_letters\{type="counter"\} (\d+)$/m.exec(text)?.[1]);
    const listed = (await a.call('GET', '/v1/dead-letters?type=counter')).body.total as number;
    expect(waiting).toBe(listed);
    expect(text).toMatch(/^hearth_mailbox_lag\{type="counter",partition="0"\} \d+$/m);
    expect(text).toMatch(/^hearth_ledger\{measure="height"\} \d+$/m);
    expect(text).toMatch(/^hearth_ledger\{measure="failing"\} 0$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    // A gateway owns no partition: it reports none (a deployment's sums count each mailbox once).
    const gateway = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: String(PARTITIONS), ROLE: 'gateway' }),
      env.log,
    );
    try {
      const theirs = await scrape(gateway.port);
      expect(theirs).toMatch(/hearth_http_requests_total/);
      expect(theirs).not.toMatch(/^hearth_mailbox_lag\{/m);
      expect(theirs).not.toMatch(/^hearth_dead_letters\{/m);
      expect(theirs).not.toMatch(/^hearth_ledger\{/m);
    } finally {
      await gateway.close();
    }
  });
});
