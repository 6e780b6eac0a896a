import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { hashSlot } from '../../../../src/store/redis/hash-slot.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { startLoad, tally } from '../../../support/cluster-load.js';
import { isolated, onCluster, type Isolated } from '../../../support/isolated.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { startClient, startRuntime } from '../../../support/runtime-harness.js';

/**
 * A master of a 3+3 Redis Cluster killed (SIGKILL) under load: its replica is promoted, hearth
 * goes on without a restart, and every answered ask was applied exactly once. The cluster is
 * this file's own (it is killed), so the file runs in the one-Redis pass only.
 */
describe.skipIf(onCluster)('Redis Cluster failover under load', () => {
  let env: Isolated;
  let cluster: RedisCluster;
  let runtime: Runtime;
  let client: ActorClient;
  let probe: Cluster;

  beforeAll(async () => {
    env = await isolated();
    cluster = await startRedisCluster();
    const on = { ...env, redisUrl: `redis+cluster://${cluster.seeds}` };
    runtime = await startRuntime(on, { actors: [counterActor] });
    client = await startClient(on, { timeoutMs: 2_000 });
    probe = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    await probe.ping();
  }, 60_000);

  afterAll(async () => {
    probe?.disconnect();
    await client?.close();
    await runtime?.close();
    await cluster?.stop();
    await env.cleanup();
  });

  it('promotes the replica, answers again within seconds, and loses or doubles nothing answered', async () => {
    // The master that holds counter partition 0's mailbox, its lease and its marks.
    const slot = hashSlot(env.keys.mailbox('counter', 0));
    const victim = Number(probe.slots[slot]![0]!.split(':')[1]);
    const load = startLoad(client, 'fo', 32);
    await until(() => load.acked >= 300, 20_000);
    const killedAt = Date.now();
    const ackedBefore = load.acked;
    await cluster.kill(victim);
    // Back when asks are answered again after the kill's last failure, and 2 s have passed
    // without one (asks merely waiting, neither failing nor answered, are not "back").
    await until(
      () =>
        load.lastFailureAt !== undefined &&
        (load.lastAckedAt ?? 0) > load.lastFailureAt &&
        Date.now() - load.lastFailureAt > 2_000,
      40_000,
    );
    const outcome = await load.stop();
    const recoveredMs = (outcome.lastFailureAt ?? killedAt) - killedAt;
    const counts = await tally(client, outcome);
    console.log(
      `failover: killed master :${victim} after ${ackedBefore} answered asks; asks failed for ${recoveredMs} ms ` +
        `(${outcome.failed} failed); ${counts.acked} answered in all, ${counts.lost} lost, ${counts.doubled} doubled, ` +
        `${counts.appliedUnanswered} applied without an answer, of ${outcome.sent.length} sent`,
    );
    expect(counts.lost).toBe(0);
    expect(counts.doubled).toBe(0);
    expect(recoveredMs).toBeLessThan(20_000);
    // Its replica is a master now, and serves the slot.
    const nodes = await cluster.cli(cluster.nodes.find((n) => n.port !== victim)!.port, 'CLUSTER', 'NODES');
    expect(nodes).toMatch(new RegExp(`127\\.0\\.0\\.1:${victim}@\\d+ [a-z,]*fail`));
    expect(outcome.ackedAt.some((t) => t > (outcome.lastFailureAt ?? 0))).toBe(true);
  }, 120_000);
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
