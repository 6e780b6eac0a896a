import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime } from '../../../support/runtime-harness.js';

describe('per-key order', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;

  beforeAll(async () => {
    env = await isolated();
    runtime = await startRuntime(env);
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  it('applies 10,000 messages over 500 keys, sent concurrently, in order per key', async () => {
    const keys = Array.from({ length: 500 }, (_, i) => `order-${i}`);
    const perKey = 20;
    // Interleave keys so each partition's stream mixes many keys; each key's sequence is in send order.
    const sends: Promise<string>[] = [];
    for (let seq = 1; seq <= perKey; seq++) {
      for (const key of keys) sends.push(client.tell('counter', key, { kind: 'add', by: 1, seq }));
    }
    await Promise.all(sends);
    expect(sends).toHaveLength(10_000);

    const states = await eventually(
      () => Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' }))),
      (all) => all.every((s) => s.applied === perKey),
      30_000,
      250,
    );
    for (const s of states) {
      expect(s).toEqual({ count: perKey, applied: perKey, lastSeq: perKey, outOfOrder: 0 });
    }
  });
});
