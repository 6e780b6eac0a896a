import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterState } from '../../src/actors/diagnostics/counter.js';
import type { ActorClient } from '../../src/actors/runtime/actor-client.js';
import { countOf, eventually, isolated, type Isolated } from '../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../support/processes.js';
import { startClient } from '../support/runtime-harness.js';

const partitionTaken = (l: Record<string, unknown>): boolean => l.msg === 'partition taken';

describe('crash recovery', () => {
  let env: Isolated;
  let client: ActorClient;
  const procs: HearthProcess[] = [];

  beforeAll(async () => {
    env = await isolated();
    client = await startClient(env, { partitions: 4 });
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await client.close();
    await env.cleanup();
  });

  it('applies every message exactly once when a worker is SIGKILLed mid-load and another takes over', async () => {
    const workerEnv = env.env({ ROLE: 'worker', ACTOR_PARTITIONS: '4', LEASE_TTL_MS: '1500', LOG_LEVEL: 'info' });
    const first = spawnHearth(workerEnv);
    procs.push(first);
    await first.waitFor(partitionTaken);
    await client.ask('counter', 'warm-up', { kind: 'add', by: 1 }, 10_000);

    const keys = Array.from({ length: 50 }, (_, i) => `crash-${i}`);
    const rounds = 60;
    let sent = 0;
    let second: HearthProcess | undefined;
    for (let seq = 1; seq <= rounds; seq++) {
      await Promise.all(keys.map((k) => client.tell('counter', k, { kind: 'add', by: 1, seq })));
      sent += keys.length;
      if (seq === 20) {
        await first.kill(); // no cleanup: leases expire, pending entries stay with the dead consumer
        second = spawnHearth(workerEnv);
        procs.push(second);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await second?.waitFor(partitionTaken);

    const states = await eventually(
      () => Promise.all(keys.map((k) => client.ask<CounterState>('counter', k, { kind: 'get' }, 5_000))),
      (all) => all.every((s) => s.applied >= rounds),
      30_000,
      250,
    );
    const total = states.reduce((n, s) => n + s.count, 0);
    expect(total).toBe(sent);
    for (const s of states) expect(s).toEqual({ count: rounds, applied: rounds, lastSeq: rounds, outOfOrder: 0 });
    const n = await countOf(env.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM outbox WHERE actor_type = 'counter' AND actor_key LIKE 'crash-%'`);
    expect(n).toBe(sent);
    // Nothing left behind: every entry of the counter mailboxes was acknowledged.
    for (let p = 0; p < 4; p++) {
      const [count] = (await env.redis.xpending(env.keys.mailbox('counter', p), env.keys.group)) as [number];
      expect(count).toBe(0);
    }
  });
});
