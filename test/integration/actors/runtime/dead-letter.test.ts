import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ActorDefinition, PersistencePolicy } from '../../../../src/actors/runtime/types.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import {
  deadLettersOf,
  startClient,
  startRuntime,
  tellFields,
  testRuntimeOptions,
} from '../../../support/runtime-harness.js';

/** A tally whose messages can fail in decide, or produce a state or a reply JSON cannot hold. */
function tally(type: string, persistence: PersistencePolicy): ActorDefinition<{ n: number | bigint }> {
  return {
    type,
    persistence,
    messages: z.object({ kind: z.enum(['add', 'throw', 'bigState', 'bigReply', 'get']) }),
    decide(state, msg) {
      const n = Number(state?.n ?? 0);
      switch (msg.kind) {
        case 'throw':
          throw new Error('decide failed on purpose');
        case 'bigState':
          return { state: { n: BigInt(n + 1) }, reply: { ok: true } };
        case 'bigReply':
          return { state: { n: n + 1 }, reply: { n: BigInt(n + 1) } };
        case 'get':
          return { state, reply: { n } };
        default:
          return { state: { n: n + 1 }, reply: { n: n + 1 } };
      }
    },
  };
}

describe('dead-letter stream', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('sets aside a message claimed from failed owners more than MAX_DELIVERIES times, and applies the rest', async () => {
    const key = 'crashy';
    const stream = env.keys.mailbox('counter', partitionOf(key, testRuntimeOptions.partitions));
    await env.redis.xgroup('CREATE', stream, env.keys.group, '0', 'MKSTREAM');
    const fields = (by: number) => tellFields(key, { kind: 'add', by });
    const poisonId = (await env.redis.xadd(stream, '*', ...fields(100))) as string;
    await env.redis.xadd(stream, '*', ...fields(1));
    // An owner read the first entry and died; three owners before it had claimed it and died too.
    await env.redis.xreadgroup('GROUP', env.keys.group, 'dead-1', 'COUNT', 1, 'STREAMS', stream, '>');
    const p = partitionOf(key, testRuntimeOptions.partitions);
    await env.redis.hset(env.keys.attempts('counter', p), poisonId, 3);

    const runtime = await startRuntime(env, { options: { maxDeliveries: 3 } });
    const client = await startClient(env);
    const state = await eventually(
      () => client.ask<{ count: number }>('counter', key, { kind: 'get' }),
      (s) => s.count > 0,
    );
    expect(state.count).toBe(1);
    const dead = await deadLettersOf(env, 'counter');
    expect(dead).toHaveLength(1);
    const f = dead[0]![1];
    expect(f[f.indexOf('id') + 1]).toBe(poisonId);
    expect(f[f.indexOf('error') + 1]).toMatch(/claimed from failed owners more than 3 times/);
    // Once acknowledged, the takeover count of the entry is forgotten.
    const left = await eventually(
      () => env.redis.hlen(env.keys.attempts('counter', p)),
      (n) => n === 0,
      5_000,
    );
    expect(left).toBe(0);
    const [pending] = (await env.redis.xpending(stream, env.keys.group)) as [number];
    expect(pending).toBe(0);
    await client.close();
    await runtime.close();
  });

  for (const persistence of [
    { mode: 'write-behind', flushMs: 50 },
    { mode: 'commit-before-reply' },
  ] as PersistencePolicy[]) {
    it(`sets aside a message that fails in decide, or whose state or reply JSON cannot hold, and goes on (${persistence.mode})`, async () => {
      const type = persistence.mode === 'write-behind' ? 'tally-wb' : 'tally-cbr';
      const runtime = await startRuntime(env, { actors: [tally(type, persistence)] });
      const client = await startClient(env);
      try {
        await expect(client.ask(type, 'a', { kind: 'throw' })).rejects.toMatchObject({ code: 'ACTOR_FAILED' });
        await expect(client.ask(type, 'b', { kind: 'bigReply' })).rejects.toMatchObject({ code: 'ACTOR_FAILED' });
        // A state that cannot be stored is found when its commit fails (write-behind has replied
        // by then): the worker singles the entry out and sets it aside.
        await client.ask(type, 'c', { kind: 'bigState' }).catch(() => undefined);
        const dead = await eventually(
          () => deadLettersOf(env, type),
          (d) => d.length >= 3,
          10_000,
        );
        const errors = dead.map(([, f]) => f[f.indexOf('error') + 1] ?? '');
        expect(errors).toHaveLength(3);
        expect(errors.filter((e) => /decide failed on purpose/.test(e))).toHaveLength(1);
        expect(errors.filter((e) => /BigInt/i.test(e))).toHaveLength(2);
        // The partitions are not stalled: every key, those three included, goes on from no state.
        for (const key of ['a', 'b', 'c', 'd']) {
          expect(await client.ask<{ n: number }>(type, key, { kind: 'add' })).toEqual({ n: 1 });
        }
        // Everything is acknowledged (write-behind: by its flush), nothing left pending.
        const pending = await eventually(
          async () => {
            let n = 0;
            for (let p = 0; p < testRuntimeOptions.partitions; p++) {
              const [count] = (await env.redis.xpending(env.keys.mailbox(type, p), env.keys.group)) as [number];
              n += count;
            }
            return n;
          },
          (n) => n === 0,
          10_000,
        );
        expect(pending).toBe(0);
        expect((await deadLettersOf(env, type)).length).toBe(3); // none written twice
      } finally {
        await client.close();
        await runtime.close();
      }
    });
  }
});
