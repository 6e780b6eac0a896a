import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../../../src/store/db.js';
import { GroupCommitter } from '../../../../src/actors/runtime/group-committer.js';
import type { BatchCommit, SnapshotStore } from '../../../../src/actors/runtime/ports.js';
import { createPgSnapshotStore } from '../../../../src/store/snapshot-store.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

describe('group commit lanes', () => {
  let env: Isolated;
  let pools: Sql[];
  /** The lane (index) of every statement, in the order they were sent. */
  const used: number[] = [];
  /** Statements on a held lane wait for its gate to open. */
  const gates = new Map<number, Promise<void>>();
  let lanes: SnapshotStore[];
  const epochs: number[] = [];
  let version = 0;

  beforeAll(async () => {
    env = await isolated();
    pools = [1, 2].map(() => createSql({ url: env.databaseUrl, schema: env.schema, max: 1 }));
    lanes = pools.map((pool, i) => {
      const store = createPgSnapshotStore(pool);
      return {
        ...store,
        async commitMany(batches) {
          used.push(i);
          await gates.get(i);
          return store.commitMany(batches);
        },
      };
    });
    for (const p of [0, 1, 2]) epochs.push(await createPgSnapshotStore(env.sql).takeFence('laned', p, 'me'));
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
    await env.cleanup();
  });

  const batch = (partition: number): BatchCommit => ({
    type: 'laned',
    partition,
    epoch: epochs[partition]!,
    dirty: new Map([[`k${partition}`, { state: { partition }, version: ++version, lastMsgId: `${version}-0` }]]),
    outbox: [],
  });

  /** Holds a lane's next statements until the returned function is called. */
  function hold(lane: number): () => void {
    let open = (): void => undefined;
    gates.set(
      lane,
      new Promise<void>((resolve) => (open = resolve)).then(() => void gates.delete(lane)),
    );
    return () => open();
  }

  it('sends one commit at a time through the first lane, always the same connection', async () => {
    used.length = 0;
    const committer = new GroupCommitter(lanes);
    for (let i = 0; i < 6; i++) await committer.commit(batch(i % 3));
    // A pool hands each query to the connection idle longest: that would be 0, 1, 0, 1, ...
    expect(used).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('takes the next lane while the first is busy, and queues behind both once both are', async () => {
    used.length = 0;
    const committer = new GroupCommitter(lanes);
    const openFirst = hold(0);
    const first = committer.commit(batch(0));
    await new Promise((r) => setImmediate(r));
    const openSecond = hold(1);
    const second = committer.commit(batch(1));
    await new Promise((r) => setImmediate(r));
    expect(used).toEqual([0, 1]);
    // Both lanes are busy: this one waits for the first lane to come free, then goes on it.
    const third = committer.commit(batch(2));
    await new Promise((r) => setImmediate(r));
    expect(used).toEqual([0, 1]);
    openFirst();
    await Promise.all([first, third]);
    expect(used).toEqual([0, 1, 0]);
    openSecond();
    await second;
    const slots = await createPgSnapshotStore(env.sql).load('laned', ['k0', 'k1', 'k2']);
    expect([...slots.values()].map((s) => s.version).sort((a, b) => a - b)).toEqual([
      version - 2,
      version - 1,
      version,
    ]);
  });

  it('refuses to be made without a lane', () => {
    expect(() => new GroupCommitter([])).toThrow(/at least one lane/);
  });
});
