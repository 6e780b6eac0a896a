import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { isolated, type Isolated, onCluster } from '../../../support/isolated.js';
import { startClient, startRuntime, tellFields, testRuntimeOptions } from '../../../support/runtime-harness.js';

/**
 * Upgrading a deployment whose mailboxes were named before hash tags (`hearth:counter:p0`): the
 * entries waiting there, delivered-but-unacknowledged ones included, are applied after the
 * upgrade, once, under the new name (`hearth:{counter:p0}`).
 */
// Names from before hash tags were only ever on one Redis.
describe.skipIf(onCluster)('mailboxes under their old names', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('are adopted by the partition owner, group and pending entries included', async () => {
    let key = 'old-0';
    for (let i = 1; partitionOf(key, testRuntimeOptions.partitions) !== 0; i++) key = `old-${i}`;
    const old = env.keys.legacy('counter', 0);
    await env.redis.xgroup('CREATE', old.mailbox, env.keys.group, '0', 'MKSTREAM');
    for (let seq = 1; seq <= 3; seq++) await env.redis.xadd(old.mailbox, '*', ...tellFields(key, { kind: 'add', seq }));
    // The first was delivered to a worker of the old version, which stopped before acknowledging it.
    await env.redis.xreadgroup('GROUP', env.keys.group, 'old-worker', 'COUNT', 1, 'STREAMS', old.mailbox, '>');
    await env.redis.hset(old.attempts, 'x', 1);

    const runtime = await startRuntime(env, { actors: [counterActor] });
    const client = await startClient(env);
    try {
      const state = await client.ask<{ count: number; applied: number; outOfOrder: number }>('counter', key, {
        kind: 'get',
      });
      expect(state).toMatchObject({ count: 3, applied: 3, outOfOrder: 0 });
      expect(await env.redis.exists(old.mailbox, old.attempts)).toBe(0);
      expect(await env.redis.xlen(env.keys.mailbox('counter', 0))).toBeGreaterThanOrEqual(3);
    } finally {
      await client.close();
      await runtime.close();
    }
  });
});
