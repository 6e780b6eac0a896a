import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { AppError } from '../../../../src/errors/index.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { deadLettersOf, startClient, startRuntime, testRuntimeOptions } from '../../../support/runtime-harness.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';

describe('ask and tell', () => {
  let env: Isolated;
  let client: ActorClient;
  let runtime: Runtime | undefined;

  beforeAll(async () => {
    env = await isolated();
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime?.close();
    await env.cleanup();
  });

  it('fails with ASK_TIMEOUT (504) when no worker answers before the deadline', async () => {
    const started = Date.now();
    const err = await client.ask('echo', 'nobody-home', { kind: 'echo', payload: 1 }, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'ASK_TIMEOUT', status: 504 });
    expect((err as Error).message).toMatch(/no answer from echo within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(client.inFlight).toBe(0);
  });

  it('answers the timed-out message once a worker starts, since the message stayed in the mailbox', async () => {
    runtime = await startRuntime(env);
    const reply = await client.ask<{ echoes: number }>('echo', 'nobody-home', { kind: 'echo', payload: 2 });
    // The first (timed-out) echo was applied too: the runtime never drops a message.
    expect(reply.echoes).toBe(2);
  });

  it('refuses an ask made while the client closes, and posts nothing for it', async () => {
    const closing = await startClient(env);
    const mailbox = env.keys.mailbox('echo', partitionOf('late', testRuntimeOptions.partitions));
    const before = await env.redis.xlen(mailbox);
    const closed = closing.close();
    const err = await closing.ask('echo', 'late', { kind: 'echo', payload: 1 }).catch((e: unknown) => e);
    await closed;
    expect(err).toMatchObject({ code: 'SHUTTING_DOWN' });
    // Nothing of it reached a mailbox: a retry elsewhere cannot make it apply twice.
    expect(await env.redis.xlen(mailbox)).toBe(before);
  });

  it('returns the reply of the actor', async () => {
    await expect(client.ask('echo', 'e1', { kind: 'echo', payload: { a: [1, 2] } })).resolves.toEqual({
      payload: { a: [1, 2] },
      echoes: 1,
    });
  });

  it('turns a rejection into an AppError with the actor code', async () => {
    const err = await client.ask('counter', 'c1', { kind: 'fail' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, message: 'this counter refuses on request' });
  });

  it('refuses a message that does not match the actor schema, without applying it', async () => {
    const err = await client.ask('counter', 'c2', { kind: 'add', by: -5 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(client.ask('counter', 'c2', { kind: 'get' })).resolves.toMatchObject({ count: 0, applied: 0 });
  });

  it('dead-letters a message whose decide throws, answers ACTOR_FAILED, and keeps serving the key', async () => {
    const err = await client.ask('echo', 'poison', { kind: 'boom' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ACTOR_FAILED', status: 500 });
    const dead = await deadLettersOf(env, 'echo');
    expect(dead).toHaveLength(1);
    const fields = dead[0]![1];
    expect(fields[fields.indexOf('key') + 1]).toBe('poison');
    expect(fields[fields.indexOf('error') + 1]).toMatch(/boom/);
    await expect(client.ask('echo', 'poison', { kind: 'echo', payload: 'ok' })).resolves.toMatchObject({
      payload: 'ok',
    });
  });

  it('tell() applies without a reply', async () => {
    await client.tell('counter', 'told', { kind: 'add', by: 3 });
    const state = await eventually(
      () => client.ask<{ count: number }>('counter', 'told', { kind: 'get' }),
      (s) => s.count === 3,
    );
    expect(state.count).toBe(3);
  });

  it('writes every effect to the outbox in the commit of its message', async () => {
    await client.ask('counter', 'fx', { kind: 'add', by: 2 });
    await client.ask('counter', 'fx', { kind: 'add', by: 5 });
    const rows = await env.sql<{ topic: string; payload: { by: number; count: number } }[]>`
      SELECT topic, payload FROM outbox WHERE actor_type = 'counter' AND actor_key = 'fx' ORDER BY id`;
    expect(rows.map((r) => r.payload)).toEqual([
      { by: 2, count: 2 },
      { by: 5, count: 7 },
    ]);
    expect(rows.every((r) => r.topic === 'counter.added')).toBe(true);
  });
});
