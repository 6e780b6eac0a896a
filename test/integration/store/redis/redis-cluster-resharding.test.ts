import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { hashSlot } from '../../../../src/store/redis/hash-slot.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { eventually, isolated, onCluster, type Isolated } from '../../../support/isolated.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { startClient, startRuntime, testRuntimeOptions } from '../../../support/runtime-harness.js';

/**
 * Slots moved between masters while messages flow: every counter mailbox's slot (with its lease,
 * marks and dead letters), one after another, as `redis-cli --cluster reshard` moves slots. Nothing sent is lost or applied out of order. The
 * cluster is this file's own (its slots move), so the file runs in the one-Redis pass only.
 */
describe.skipIf(onCluster)('Redis Cluster resharding under load', () => {
  let env: Isolated;
  let cluster: RedisCluster;
  let runtime: Runtime;
  let client: ActorClient;

  beforeAll(async () => {
    env = await isolated();
    cluster = await startRedisCluster();
    const on = { ...env, redisUrl: `redis+cluster://${cluster.seeds}` };
    runtime = await startRuntime(on, { actors: [counterActor] });
    client = await startClient(on);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await runtime?.close();
    await cluster?.stop();
    await env.cleanup();
  });

  it('moves the mailboxes and reply stream to other masters mid-stream: nothing lost, per-key order kept', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => `rs-${i}`);
    const slots = [
      ...Array.from({ length: testRuntimeOptions.partitions }, (_, p) => hashSlot(env.keys.mailbox('counter', p))),
    ];
    // One round of tells per key at a time (each key's messages in order), all keys at once, at
    // least 30 rounds and until the last slot has moved: the moves fall inside the stream of
    // messages however slow the machine is (a loaded CI once took longer than 30 rounds to move).
    let failed = 0;
    let round = 0;
    // The last round to send: unknown until the moves are done, then two rounds after them.
    let last = Infinity;
    const sending = (async () => {
      for (let seq = 1; seq <= Math.max(30, last); seq++) {
        round = seq;
        const sent = await Promise.allSettled(keys.map((k) => client.tell('counter', k, { kind: 'add', by: 1, seq })));
        failed += sent.filter((s) => s.status === 'rejected').length;
        await new Promise((r) => setTimeout(r, 30));
      }
    })();
    const masters = await cluster.masters();
    while (round < 5) await new Promise((r) => setTimeout(r, 10));
    for (const slot of slots) {
      const from = await cluster.masterOf(slot);
      await cluster.moveSlot(
        slot,
        masters.find((m) => m !== from)!,
      );
    }
    const roundAtLastMove = round;
    last = roundAtLastMove + 2;
    await sending;
    const perKey = round;
    // The moves fell inside the stream of messages, not after it.
    expect(roundAtLastMove).toBeLessThan(perKey);
    expect(failed).toBe(0);
    const states = await eventually(
      () => Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' }))),
      (all) => all.every((s) => s.applied === perKey),
      30_000,
      250,
    );
    console.log(
      `resharding: moved ${slots.length} slots between rounds 5 and ${roundAtLastMove} of ${perKey} ` +
        `(${keys.length * perKey} tells); ${failed} tells failed`,
    );
    for (const s of states) expect(s).toEqual({ count: perKey, applied: perKey, lastSeq: perKey, outOfOrder: 0 });
    for (const slot of slots) expect(masters).toContain(await cluster.masterOf(slot));
  }, 120_000);
});
