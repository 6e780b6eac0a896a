import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpContext } from '../../../../src/gateways/http/context.js';
import { IdempotencyStore } from '../../../../src/gateways/http/idempotency.js';
import { pgIdempotencyRows } from '../../../../src/gateways/http/idempotency-rows.js';
import { createLogger } from '../../../../src/log.js';
import { createSql, type Sql } from '../../../../src/store/db.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

/**
 * Idempotency claims through a PostgreSQL failover, on a real PostgreSQL whose answers to the
 * claim's INSERT are lost as a failover loses them: the statement ran (its row is there) but the
 * connection closed before the answer, or it reached a server gone read-only and ran not at all.
 * Traced in the failover test: one key's first try left a claim that way, its second try failed on
 * the read-only old primary, and the retries were told 409 until the first claim lapsed (two
 * minutes), because the gateway remembered one claim per key and the second replaced the first.
 */
type Fault = 'answer lost' | 'read-only';

describe('idempotency claims whose INSERT failed in a failover', () => {
  let env: Isolated;
  let sql: Sql;
  const faults: Fault[] = [];

  beforeAll(async () => {
    env = await isolated();
    sql = createSql({ url: env.databaseUrl, schema: env.schema, max: 2 });
  });

  afterAll(async () => {
    await sql.end({ timeout: 1 });
    await env.cleanup();
  });

  /** The pool, with the next claim INSERT's fault applied (the statement itself is real). */
  function faulty(): Sql {
    return new Proxy(sql, {
      apply(target, thisArg, args: unknown[]) {
        const text = (args[0] as readonly string[] | undefined)?.join('?') ?? '';
        if (!text.includes('INSERT INTO idempotency_keys') || faults.length === 0) {
          return Reflect.apply(target, thisArg, args) as unknown;
        }
        const fault = faults.shift();
        if (fault === 'read-only') {
          const err = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' });
          return Promise.reject(err);
        }
        return (async () => {
          await (Reflect.apply(target, thisArg, args) as Promise<unknown>);
          throw Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' });
        })();
      },
    });
  }

  function context(key: string, answered = new AbortController().signal): HttpContext {
    return {
      method: 'POST',
      path: '/v1/vouchers/redeem',
      route: '/v1/vouchers/redeem',
      query: new URLSearchParams(),
      rawQuery: '',
      params: {},
      headers: { 'idempotency-key': key },
      reqId: randomUUID(),
      log: createLogger('silent', 'test'),
      ip: '127.0.0.1',
      signal: new AbortController().signal,
      answered,
      body: () => Promise.resolve(Buffer.from('{"amount":1}')),
    };
  }

  it('answers the retry after two failed tries at once, not 409 until the first claim lapses', async () => {
    const store = new IdempotencyStore(pgIdempotencyRows(faulty()), randomBytes(16).toString('hex'));
    const who = { keyId: `key-${randomUUID()}`, role: 'supplier' as const };
    const key = randomUUID();
    let ran = 0;
    const handler = () => {
      ran++;
      return Promise.resolve({ status: 201, body: '{"id":"r1"}' });
    };

    faults.push('answer lost');
    await expect(store.run(context(key), who, handler)).rejects.toThrow(/CONNECTION_CLOSED/);
    faults.push('read-only');
    await expect(store.run(context(key), who, handler)).rejects.toThrow(/read-only/);
    // The first try's claim is in the table, unanswered.
    const [claim] = await sql<{ status: number | null }[]>`
      SELECT status FROM idempotency_keys WHERE owner = ${who.keyId} AND key = ${key}`;
    expect(claim).toEqual({ status: null });

    const third = await store.run(context(key), who, handler);
    expect(third.status).toBe(201);
    expect(ran).toBe(1);
    // And a fourth is the kept answer.
    const fourth = await store.run(context(key), who, handler);
    expect(fourth).toMatchObject({ status: 201, headers: { 'Idempotent-Replayed': 'true' } });
    expect(ran).toBe(1);
  });

  it('answers the retry of a request whose client was told 503 while its handler hangs, instead of 409 until it ends', async () => {
    const store = new IdempotencyStore(pgIdempotencyRows(sql), randomBytes(16).toString('hex'));
    const who = { keyId: `key-${randomUUID()}`, role: 'supplier' as const };
    const key = randomUUID();
    // The first try's handler hangs (its connection was left on a demoted primary) until released.
    let finishFirst: (r: { status: number; body: string }) => void = () => undefined;
    const hanging = new Promise<{ status: number; body: string }>((r) => (finishFirst = r));
    let ran = 0;
    const handler = () => (++ran === 1 ? hanging : Promise.resolve({ status: 201, body: '{"id":"r1","try":2}' }));

    const told503 = new AbortController();
    const first = store.run(context(key, told503.signal), who, handler);
    await new Promise((r) => setTimeout(r, 50));
    // While the first try's client is still waiting, its retry is told the key is in use.
    await expect(store.run(context(key), who, handler)).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    // The server answers that client 503 (its deadline passed) and the handler goes on.
    told503.abort();
    const retry = await store.run(context(key), who, handler);
    expect(retry).toMatchObject({ status: 201, body: '{"id":"r1","try":2}' });
    expect(ran).toBe(2);

    // The first handler ends at last: its answer does not replace the one its retry was given.
    finishFirst({ status: 201, body: '{"id":"r1","try":1}' });
    await first;
    const again = await store.run(context(key), who, handler);
    expect(again).toMatchObject({ status: 201, headers: { 'Idempotent-Replayed': 'true' } });
    expect(String(again.body)).toBe('{"id":"r1","try":2}');
    expect(ran).toBe(2);
  });
});
