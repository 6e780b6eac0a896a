import { describe, expect, it } from 'vitest';
import { partitionOf } from '../../src/actors/runtime/partitioning.js';
import { FencedError, type BatchCommit, type SnapshotStore } from '../../src/actors/runtime/ports.js';
import { recordFact } from '../../src/actors/runtime/types.js';

/**
 * A read model table for the suite: `key` plus a text column `label` and an integer `n` (the
 * PostgreSQL test creates it), and how to read a row back.
 */
export interface SuiteViews {
  table: string;
  read: (key: string) => Promise<{ label: string | null; n: number | null } | undefined>;
}

/**
 * The rules every SnapshotStore keeps, run against each adapter (PostgreSQL, memory): a store
 * that passes can carry the runtime. `make` gives a fresh store; `type` names an actor type no
 * other test of the store uses.
 */
export function snapshotStoreSuite(
  name: string,
  make: () => Promise<SnapshotStore> | SnapshotStore,
  views: () => SuiteViews,
): void {
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

    it('keeps a snapshot without a state as no state, with its version and last message id', async () => {
      // An actor whose first message emitted effects but set no state: its message id must stay
      // (a redelivery is then skipped, not emitted twice), and it still has no state to load.
      const { store, type } = await fresh();
      const epoch = await store.takeFence(type, 0, 'w1');
      await store.commit(batch(type, epoch, [['a', 1, undefined]]));
      expect((await store.load(type, ['a'])).get('a')).toEqual({ state: undefined, version: 1, lastMsgId: '1-0' });
      await store.commit(batch(type, epoch, [['a', 2, { v: 2 }]]));
      expect((await store.load(type, ['a'])).get('a')).toEqual({ state: { v: 2 }, version: 2, lastMsgId: '2-0' });
    });

    it('writes facts with their snapshots, the last body of each, deletes a fact given null, and none when fenced', async () => {
      const { store, type } = await fresh();
      const first = await store.takeFence(type, 0, 'w1');
      const withFacts = (b: BatchCommit, facts: Array<[string, string, unknown]>): BatchCommit => ({
        ...b,
        facts: facts.map(([key, id, body]) => ({ key, id, body })),
      });
      await store.commit(
        withFacts(batch(type, first, [['a', 1, 's']]), [
          ['a', 'step:1', { n: 1 }],
          ['a', 'step:2', true],
          ['b', 'step:1', 'of b'],
        ]),
      );
      const refs = [
        { key: 'a', id: 'step:1' },
        { key: 'a', id: 'step:2' },
        { key: 'a', id: 'step:3' },
        { key: 'b', id: 'step:1' },
      ];
      const loaded = await store.loadFacts(type, refs);
      expect(Object.fromEntries(loaded)).toEqual({
        'a\u0000step:1': { n: 1 },
        'a\u0000step:2': true,
        'b\u0000step:1': 'of b',
      });
      await store.commit(
        withFacts(batch(type, first, [['a', 2, 's2']]), [
          ['a', 'step:1', null],
          ['a', 'step:2', { changed: true }],
        ]),
      );
      const again = await store.loadFacts(type, refs);
      expect(again.has('a\u0000step:1')).toBe(false);
      expect(again.get('a\u0000step:2')).toEqual({ changed: true });
      const second = await store.takeFence(type, 0, 'w2');
      expect(second).toBeGreaterThan(first);
      await expect(
        store.commit(withFacts(batch(type, first, [['a', 3, 's3']]), [['a', 'step:9', 1]])),
      ).rejects.toBeInstanceOf(FencedError);
      expect((await store.loadFacts(type, [{ key: 'a', id: 'step:9' }])).size).toBe(0);
      // Facts of another type are not this one's.
      expect((await store.loadFacts(`${type}-other`, refs)).size).toBe(0);
    });

    it("reads an actor's record as a fact, by kind and id, and only that actor's", async () => {
      const { store, type } = await fresh();
      const epoch = await store.takeFence(type, 0, 'w1');
      await store.commit({
        ...batch(type, epoch, [['a', 1, 's']]),
        records: [{ key: 'a', msgId: '1-0', kind: 'redemption', id: 'r:1', body: { amount: 5 } }],
        facts: [{ key: 'a', id: 'step:1', body: true }],
      });
      const loaded = await store.loadFacts(type, [
        { key: 'a', id: recordFact('redemption', 'r:1') },
        { key: 'b', id: recordFact('redemption', 'r:1') },
        { key: 'a', id: recordFact('other', 'r:1') },
        { key: 'a', id: 'step:1' },
      ]);
      expect(Object.fromEntries(loaded)).toEqual({
        [`a\u0000${recordFact('redemption', 'r:1')}`]: { amount: 5 },
        'a\u0000step:1': true,
      });
      expect((await store.loadFacts(`${type}-other`, [{ key: 'a', id: recordFact('redemption', 'r:1') }])).size).toBe(
        0,
      );
    });

    it("adds to other actors' tallies per writing partition, nothing when fenced", async () => {
      const { store, type } = await fresh();
      const owner = `${type}-owner`;
      const big = '9007199254740993'; // past 2^53: sums stay exact
      const p0 = await store.takeFence(type, 0, 'w1');
      const p1 = await store.takeFence(type, 1, 'w1');
      const adding = (partition: number, epoch: number, key: string, version: number, by: string): BatchCommit => ({
        ...batch(type, epoch, [[key, version, 's']]),
        partition,
        tallies: [
          { type: owner, key: 'acct', name: 'pending:CARBON', by },
          { type: owner, key: 'acct', name: 'pending:USDC', by: '1' },
        ],
      });
      await store.commitMany([adding(0, p0, 'v0', 1, big), adding(1, p1, 'v1', 1, '7')]);
      await store.commit(adding(0, p0, 'v0', 2, '3'));
      expect(Object.fromEntries(await store.loadTallies(owner, ['acct', 'nobody']))).toEqual({
        acct: { 'pending:CARBON': '9007199254741003', 'pending:USDC': '3' },
      });
      // The writer's own type has no tallies.
      expect((await store.loadTallies(type, ['acct'])).size).toBe(0);
      await store.takeFence(type, 1, 'w2');
      await expect(store.commit(adding(1, p1, 'v1', 2, '100'))).rejects.toBeInstanceOf(FencedError);
      expect((await store.loadTallies(owner, ['acct'])).get('acct')?.['pending:CARBON']).toBe('9007199254741003');
    });

    const withView = (
      b: BatchCommit,
      rows: Array<[string, { label: string; n: number } | undefined]>,
    ): BatchCommit => ({
      ...b,
      view: { table: views().table, columns: ['label', 'n'], rows: rows.map(([key, row]) => ({ key, row })) },
    });

    it('writes read model rows with their snapshots, deletes a row given as none, and writes none when fenced', async () => {
      const { store, type } = await fresh();
      const { read } = views();
      const first = await store.takeFence(type, 0, 'w1');
      const [a, b] = [`${type}-a`, `${type}-b`];
      await store.commit(
        withView(
          batch(type, first, [
            [a, 1, 'x'],
            [b, 1, 'y'],
          ]),
          [
            [a, { label: 'one', n: 1 }],
            [b, { label: 'two', n: 2 }],
          ],
        ),
      );
      expect(await read(a)).toEqual({ label: 'one', n: 1 });
      await store.commit(
        withView(
          batch(type, first, [
            [a, 2, 'x2'],
            [b, 2, 'y2'],
          ]),
          [
            [a, { label: 'uno', n: 11 }],
            [b, undefined],
          ],
        ),
      );
      expect(await read(a)).toEqual({ label: 'uno', n: 11 });
      expect(await read(b)).toBeUndefined();
      await store.takeFence(type, 0, 'w2');
      await expect(
        store.commit(withView(batch(type, first, [[a, 3, 'x3']]), [[a, { label: 'stale', n: 0 }]])),
      ).rejects.toBeInstanceOf(FencedError);
      expect(await read(a)).toEqual({ label: 'uno', n: 11 });
    });

    it('retires idle snapshots of owned partitions whose epoch holds, with their read model rows, and nothing else', async () => {
      const { store, type } = await fresh();
      const { read, table } = views();
      // Keys of partition 0 and partition 1 of 2.
      const keys = Array.from({ length: 12 }, (_, i) => `${type}-k${i}`);
      const inP = (p: number) => keys.filter((k) => partitionOf(k, 2) === p);
      const [p0, p1] = [inP(0), inP(1)];
      expect(p0.length).toBeGreaterThan(0);
      expect(p1.length).toBeGreaterThan(0);
      const e0 = await store.takeFence(type, 0, 'w1');
      const e1 = await store.takeFence(type, 1, 'w1');
      for (const [p, e, ks] of [
        [0, e0, p0],
        [1, e1, p1],
      ] as const) {
        await store.commit({
          ...withView(
            batch(
              type,
              e,
              ks.map((k) => [k, 1, { k }]),
            ),
            ks.map((k) => [k, { label: k, n: 1 }]),
          ),
          partition: p,
        });
      }
      const later = new Date(Date.now() + 60_000);
      const earlier = new Date(Date.now() - 60_000);
      const retire = (owned: Map<number, number>, idleBefore: Date, limit = 100) =>
        store.retireIdle({ type, partitions: 2, owned, idleBefore, limit, viewTable: table });

      expect(await retire(new Map([[0, e0]]), earlier)).toEqual([]); // written since
      expect(await retire(new Map([[0, e0 - 1]]), later)).toEqual([]); // an older epoch
      const gone = await retire(new Map([[0, e0]]), later, p0.length - 1); // bounded
      expect(gone.length).toBe(p0.length - 1);
      expect((await retire(new Map([[0, e0]]), later)).length).toBe(1);
      const left = await store.load(type, keys);
      expect([...left.keys()].sort()).toEqual([...p1].sort());
      for (const k of p0) expect(await read(k)).toBeUndefined();
      for (const k of p1) expect(await read(k)).toEqual({ label: k, n: 1 });
      // A retired actor may come back: its first snapshot is a new one.
      await store.commit(batch(type, e0, [[p0[0]!, 1, 'again']]));
      expect((await store.load(type, [p0[0]!])).get(p0[0]!)?.state).toBe('again');
    });
  });
}
