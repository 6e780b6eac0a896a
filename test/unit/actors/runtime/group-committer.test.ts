import { describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../../../src/actors/runtime/group-committer.js';
import { FencedError, type BatchCommit, type SnapshotStore } from '../../../../src/actors/runtime/ports.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/** The group committer on the in-memory store: no services, the same rules as PostgreSQL's. */
const batch = (partition: number, epoch: number, key: string, version = 1, state: unknown = { key }): BatchCommit => ({
  type: 'unit',
  partition,
  epoch,
  dirty: new Map([[key, { state, version, lastMsgId: `${version}-0` }]]),
  outbox: [],
});

/** A store that counts its commit statements. */
function counting(store: SnapshotStore): SnapshotStore & { statements: number } {
  const counted = Object.assign(Object.create(store) as SnapshotStore, { statements: 0 });
  counted.commitMany = (batches) => {
    counted.statements++;
    return store.commitMany(batches);
  };
  return counted;
}

describe('GroupCommitter (in memory)', () => {
  it("commits one round's partitions in one statement, and fences each partition on its own", async () => {
    const memory = new MemorySnapshotStore();
    const store = counting(memory);
    const committer = new GroupCommitter([store]);
    const [e0, e1, e2] = [await memory.takeFence('unit', 0, 'w'), await memory.takeFence('unit', 1, 'w'), 0];
    await memory.takeFence('unit', 2, 'w');
    const outcomes = await Promise.allSettled([
      committer.commit(batch(0, e0, 'a')),
      committer.commit(batch(1, e1, 'b')),
      committer.commit(batch(2, e2, 'c')), // an epoch this worker never held
    ]);
    expect(store.statements).toBe(1);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(FencedError);
    expect([...(await memory.load('unit', ['a', 'b', 'c'])).keys()]).toEqual(['a', 'b']);
  });

  it('gives each batch its own outcome when one of a group is refused', async () => {
    const memory = new MemorySnapshotStore();
    const committer = new GroupCommitter([memory]);
    const epoch = await memory.takeFence('unit', 0, 'w');
    await committer.commit(batch(0, epoch, 'a', 2));
    const outcomes = await Promise.allSettled([
      committer.commit(batch(0, epoch, 'b')),
      committer.commit(batch(0, epoch, 'a', 2, { stale: true })), // does not advance
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    const loaded = await memory.load('unit', ['a', 'b']);
    expect(loaded.get('a')?.state).toEqual({ key: 'a' });
    expect(loaded.has('b')).toBe(true);
  });

  it('fails a whole group at once when the store cannot be reached, not batch by batch', async () => {
    const memory = new MemorySnapshotStore();
    const store = counting(memory);
    const epoch = await memory.takeFence('unit', 0, 'w');
    // PostgreSQL gone (a failover): each statement would wait out the connect timeout.
    store.commitMany = () => {
      store.statements++;
      return Promise.reject(Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' }));
    };
    const committer = new GroupCommitter([store]);
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((k) => committer.commit(batch(0, epoch, k))));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(store.statements).toBe(1);
  });

  it('still tries the batches of a group one by one when PostgreSQL refuses a value (a data error)', async () => {
    const memory = new MemorySnapshotStore();
    const store = counting(memory);
    const epoch = await memory.takeFence('unit', 0, 'w');
    const commitMany = memory.commitMany.bind(memory);
    store.commitMany = (batches) => {
      store.statements++;
      if (batches.some((b) => b.dirty.has('bad'))) {
        return Promise.reject(Object.assign(new Error('invalid input syntax'), { code: '22P02' }));
      }
      return commitMany(batches);
    };
    const committer = new GroupCommitter([store]);
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((k) => committer.commit(batch(0, epoch, k))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(store.statements).toBe(4);
  });

  it('fails the batches of a commit that never answers after its deadline, renews its lane, and commits on it again', async () => {
    const memory = new MemorySnapshotStore();
    // The lane's connection was left on a server that shut down: its statement neither ends nor fails.
    let hung = true;
    let renewed = 0;
    const lane = Object.assign(Object.create(memory) as SnapshotStore, {
      commitMany: (batches: readonly BatchCommit[]) =>
        hung ? new Promise<Set<string>>(() => undefined) : memory.commitMany(batches),
      renew: () => {
        renewed++;
        hung = false;
      },
    });
    const committer = new GroupCommitter([lane], 64, 50);
    const epoch = await memory.takeFence('unit', 0, 'w');
    const outcomes = await Promise.allSettled([
      committer.commit(batch(0, epoch, 'a')),
      committer.commit(batch(0, epoch, 'b')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(
      /unanswered after 50 ms; its outcome is unknown/,
    );
    expect(renewed).toBe(1);
    // The round is replayed: on the renewed lane, it commits.
    await committer.commit(batch(0, epoch, 'a'));
    expect([...(await memory.load('unit', ['a', 'b'])).keys()]).toEqual(['a']);
  });
});
