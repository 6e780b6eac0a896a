import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../src/actors/runtime/keys.js';
import { eventually, isolated, type Isolated } from '../support/isolated.js';
import { startClient, startRuntime, testRuntimeOptions } from '../support/runtime-harness.js';

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
    const fields = (by: number) =>
      encodeEntry({
        key,
        kind: 'add',
        body: JSON.stringify({ kind: 'add', by }),
        reply: '',
        corr: '',
        ts: Date.now(),
        deadline: 0,
      });
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
    const dead = await env.redis.xrange(env.keys.deadLetter('counter'), '-', '+');
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
});
