import { describe, expect, it } from 'vitest';
import { FencedError, type BatchCommit, type SnapshotStore } from '../../src/actors/runtime/ports.js';

/**
 * The rules every SnapshotStore keeps, run against each adapter (PostgreSQL, memory): a store
 * that passes can carry the runtime. `make` gives a fresh store; `type` names an actor type no
 * other test of the store uses.
 */
export function snapshotStoreSuite(name: string, make: () => Promise<SnapshotStore> | SnapshotStore): void {
  describe(`SnapshotStore conformance: ${name}`, () => {
    let n = 0;
    const fresh = async () => ({ store: await make(), type: `conf-${Date.now().toString(36)}-${++n}` });
    const batch = (type: string, epoch: number, dirty: Array<[string, number, unknown]>): BatchCommit => ({
      type,
      partition: 0,
      epoch,
      dirty: new Map(dirty.map(([key, version, state]) => [key, { state, version, lastMsgId: `${version}-0` }])),
      outbox: [],
    });

    it('loads only what was committed, as it was committed (a copy)', async () => {
      const { store, type } = await fresh();
      expect(await store.load(type, ['a'])).toEqual(new Map());
      const epoch = await store.takeFence(type, 0, 'w1');
      const state = { balance: 5, items: ['x'] };
      await store.commit(batch(type, epoch, [['a', 1, state]]));
      state.items.push('changed after the commit');
      const loaded = await store.load(type, ['a', 'b']);
      expect([...loaded.keys()]).toEqual(['a']);
      expect(loaded.get('a')).toEqual({ state: { balance: 5, items: ['x'] }, version: 1, lastMsgId: '1-0' });
    });

    it('gives each new owner the next epoch, and refuses a commit at an older one (FencedError)', async () => {
      const { store, type } = await fresh();
      const first = await store.takeFence(type, 0, 'w1');
      const second = await store.takeFence(type, 0, 'w2');
      expect(second).toBe(first + 1);
      await expect(store.commit(batch(type, first, [['a', 1, { v: 1 }]]))).rejects.toBeInstanceOf(FencedError);
      expect(await store.load(type, ['a'])).toEqual(new Map());
      await store.commit(batch(type, second, [['a', 1, { v: 2 }]]));
      expect((await store.load(type, ['a'])).get('a')?.state).toEqual({ v: 2 });
    });

    it('commits many partitions at once, writing only those whose fence still holds', async () => {
      const { store, type } = await fresh();
      const p0 = await store.takeFence(type, 0, 'w1');
      const p1 = await store.takeFence(type, 1, 'w1');
      await store.takeFence(type, 1, 'w2'); // partition 1 moved on
      const held = await store.commitMany([
        batch(type, p0, [['a', 1, 'zero']]),
        { ...batch(type, p1, [['b', 1, 'one']]), partition: 1 },
      ]);
      expect([...held]).toEqual([`${type}/0`]);
      const loaded = await store.load(type, ['a', 'b']);
      expect(loaded.get('a')?.state).toBe('zero');
      expect(loaded.has('b')).toBe(false);
    });

    it('writes all or nothing: a snapshot that does not advance aborts the whole commit', async () => {
      const { store, type } = await fresh();
      const epoch = await store.takeFence(type, 0, 'w1');
      await store.commit(batch(type, epoch, [['a', 2, 'two']]));
      await expect(
        store.commit(
          batch(type, epoch, [
            ['b', 1, 'new'],
            ['a', 2, 'not newer'],
          ]),
        ),
      ).rejects.toBeInstanceOf(FencedError);
      const loaded = await store.load(type, ['a', 'b']);
      expect(loaded.get('a')?.state).toBe('two');
      expect(loaded.has('b')).toBe(false);
    });

    it('refuses a snapshot without a state, and writes nothing of its commit', async () => {
      const { store, type } = await fresh();
      const epoch = await store.takeFence(type, 0, 'w1');
      await store.commit(batch(type, epoch, [['a', 1, { v: 1 }]]));
      await expect(
        store.commit(
          batch(type, epoch, [
            ['b', 1, 'kept?'],
            ['a', 2, undefined],
          ]),
        ),
      ).rejects.toThrow();
      const loaded = await store.load(type, ['a', 'b']);
      expect(loaded.get('a')).toEqual({ state: { v: 1 }, version: 1, lastMsgId: '1-0' });
      expect(loaded.has('b')).toBe(false);
    });
  });
}
