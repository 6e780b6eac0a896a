import { describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { echoActor } from '../../../../src/actors/echo/index.js';
import { IdleRetirer } from '../../../../src/actors/runtime/idle-retirer.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { createLogger } from '../../../../src/log.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

const HOUR = 3_600_000;
const retiring: ActorDefinition = { ...(counterActor as ActorDefinition), retention: { idleMs: HOUR } };
const kept = echoActor as ActorDefinition;

/** A store holding `n` counters and `n` echoes, written at `t0`, partition 0 of 2 owned at `epoch`. */
async function world(n: number) {
  let t = 0;
  const store = new MemorySnapshotStore(() => t);
  const epochs = new Map<string, number>();
  for (const type of ['counter', 'echo']) {
    for (const p of [0, 1]) epochs.set(`${type}/${p}`, await store.takeFence(type, p, 'w1'));
    for (let i = 0; i < n; i++) {
      const key = `${type}-${i}`;
      const p = partitionOf(key, 2);
      await store.commit({
        type,
        partition: p,
        epoch: epochs.get(`${type}/${p}`)!,
        dirty: new Map([[key, { state: { i }, version: 1, lastMsgId: '1-0' }]]),
        outbox: [],
      });
    }
  }
  return { store, epochs, setTime: (ms: number) => (t = ms) };
}

describe('IdleRetirer', () => {
  it('retires idle actors of retaining types only, in the partitions owned, in bounded statements', async () => {
    const { store, epochs, setTime } = await world(40);
    const forgotten: string[] = [];
    const counted: number[] = [];
    let now = 0;
    const retirer = new IdleRetirer({
      store,
      log: createLogger('silent', 'test'),
      clock: () => new Date(now),
      actors: [retiring, kept],
      partitions: 2,
      owned: (type) => new Map([[0, epochs.get(`${type}/0`)!]]),
      forget: (type, keys) => forgotten.push(...keys.map((k) => `${type}:${k}`)),
      everyMs: HOUR,
      batch: 7,
      onRetired: (_type, n) => counted.push(n),
    });
    setTime(0);
    now = HOUR - 1; // written at 0: idle for less than the policy's hour
    expect(await retirer.sweep()).toBe(0);

    now = 2 * HOUR;
    const inP0 = Array.from({ length: 40 }, (_, i) => `counter-${i}`).filter((k) => partitionOf(k, 2) === 0);
    expect(await retirer.sweep()).toBe(inP0.length);
    expect(forgotten.sort()).toEqual(inP0.map((k) => `counter:${k}`).sort());
    // Statements of at most `batch`, until one came back short.
    expect(counted.every((c) => c <= 7)).toBe(true);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(inP0.length);

    const all = (type: string) => Array.from({ length: 40 }, (_, i) => `${type}-${i}`);
    expect((await store.load('counter', all('counter'))).size).toBe(40 - inP0.length);
    expect((await store.load('echo', all('echo'))).size).toBe(40); // no policy: never retired
  });

  it('retires nothing of a partition whose fence moved on to another owner', async () => {
    const { store, epochs } = await world(10);
    await store.takeFence('counter', 0, 'w2');
    const retirer = new IdleRetirer({
      store,
      log: createLogger('silent', 'test'),
      clock: () => new Date(2 * HOUR),
      actors: [retiring],
      partitions: 2,
      owned: () => new Map([[0, epochs.get('counter/0')!]]),
      forget: () => undefined,
      everyMs: HOUR,
      batch: 100,
    });
    expect(await retirer.sweep()).toBe(0);
  });
});
