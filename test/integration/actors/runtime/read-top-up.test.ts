import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import type { Runtime } from '../../../../src/actors/runtime/runtime.js';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { createMetrics, type Metrics } from '../../../../src/metrics.js';
import { eventually, isolated, onCluster, type Isolated } from '../../../support/isolated.js';
import { startClient, startRuntime } from '../../../support/runtime-harness.js';

const BURST = 40;

/**
 * A burst of messages written in one call while the worker is blocked in XREADGROUP on its
 * partitions: Redis wakes the worker with the entries of one partition, so without a second read
 * the burst is split in two rounds (one partition's share, then the rest), each with its own commit.
 * One Redis only: on a Redis Cluster the burst is one call per master, which arrive apart (a
 * loaded CI machine saw the top-up read come before another master's share, and two rounds), so
 * the premise, a burst that is there all at once, does not hold.
 */
describe.skipIf(onCluster)('a burst that wakes a blocked worker under load', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;
  let metrics: Metrics;

  beforeAll(async () => {
    env = await isolated();
    metrics = createMetrics();
    // A long block and lease: the second burst must come while the worker still counts as loaded,
    // i.e. before its blocking read times out empty, even on a loaded CI machine.
    runtime = await startRuntime(env, {
      actors: [counterActor],
      metrics,
      options: { blockMs: 5_000, leaseTtlMs: 15_000 },
    });
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  /** The counter type's rounds committed so far, and the entries they held. */
  async function commits(): Promise<{ rounds: number; entries: number }> {
    const { values } = await metrics.commitBatchSize.get();
    const of = (name: string): number =>
      values.find((v) => v.metricName === name && v.labels.type === 'counter')?.value ?? 0;
    return { rounds: of('hearth_commit_batch_size_count'), entries: of('hearth_commit_batch_size_sum') };
  }

  /** Sends `BURST` tells in one tick (one script call), then waits until all are committed. */
  async function burst(tag: string, committedBefore: number): Promise<void> {
    await Promise.all(
      Array.from({ length: BURST }, (_, i) => client.tell('counter', `${tag}-${i}`, { kind: 'add', by: 1 })),
    );
    // Polled often: the next burst must come while the worker still counts as loaded (within one block).
    const after = await eventually(commits, (c) => c.entries >= committedBefore + BURST, 10_000, 5);
    expect(after.entries).toBe(committedBefore + BURST);
  }

  it('is applied and committed in one round', async () => {
    await burst('warm', 0);
    const before = await commits();
    await burst('hot', before.entries);
    const after = await commits();
    expect(after.rounds - before.rounds).toBe(1);
  });
});
