import { afterEach, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { GroupCommitter } from '../../../../src/actors/runtime/group-committer.js';
import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import type { Mailbox, SnapshotStore } from '../../../../src/actors/runtime/ports.js';
import { TypeWorker, type TypeWorkerOptions } from '../../../../src/actors/runtime/type-worker.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/**
 * The type worker's rounds on the in-memory adapters: batching, commit-before-reply, fencing
 * and replay, with no Redis and no PostgreSQL.
 */
const options: TypeWorkerOptions = {
  batch: 256,
  blockMs: 50,
  maxDeliveries: 3,
  cacheSize: 1_000,
  trimEveryMs: 60_000,
  leaseTtlMs: 60_000,
};
const counter = counterActor as ActorDefinition;
const REPLIES = 'replies';

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(o: { mailbox?: (m: Mailbox) => Mailbox; store?: MemorySnapshotStore } = {}) {
  const broker = new MemoryMailboxes();
  broker.openReplies(REPLIES);
  const store = o.store ?? new MemorySnapshotStore();
  const statements: number[] = [];
  // Counts the group committer's statements (one commitMany each) and what each held.
  const counted: SnapshotStore = {
    ...store,
    load: (t, k) => store.load(t, k),
    loadFacts: (t, r) => store.loadFacts(t, r),
    loadTallies: (t, k) => store.loadTallies(t, k),
    takeFence: (t, p, w) => store.takeFence(t, p, w),
    commit: (b) => store.commit(b),
    retireIdle: (r) => store.retireIdle(r),
    commitMany: (batches) => {
      statements.push(batches.reduce((n, b) => n + b.dirty.size, 0));
      return store.commitMany(batches);
    },
  };
  const committer = new GroupCommitter([counted]);
  const lost: number[] = [];
  const mailbox = (o.mailbox ?? ((m) => m))(broker.mailbox('counter', 'w1'));
  const worker = new TypeWorker({
    def: counter,
    workerId: 'w1',
    mailbox,
    store: counted,
    commit: (b) => committer.commit(b),
    log: createLogger('silent', 'test'),
    metrics: createMetrics(),
    clock: () => new Date(),
    options,
    onLost: (p) => lost.push(p),
  });
  let n = 0;
  const ask = (key: string, body: object) =>
    broker.send(
      'counter',
      0,
      encodeEntry({ key, kind: 'add', body: JSON.stringify(body), reply: REPLIES, corr: `c${++n}`, ts: 0 }),
    );
  const replies = () => broker.replies.get(REPLIES) ?? [];
  return { broker, store, worker, statements, lost, ask, replies };
}

let running: TypeWorker | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('TypeWorker on the in-memory adapters', () => {
  it('applies a burst in a few rounds, one statement each, and replies to every ask', async () => {
    const { store, worker, statements, ask, replies } = setup();
    const epoch = await store.takeFence('counter', 0, 'w1');
    for (let i = 1; i <= 300; i++) ask(`k${i % 7}`, { kind: 'add', by: 1, seq: Math.ceil(i / 7) });
    worker.add(0, epoch, performance.now() + 60_000);
    running = worker;
    worker.start();
    await until(() => replies().length === 300);
    expect(replies().every((r) => r.ok)).toBe(true);
    // 300 entries in rounds of at most `batch` (256): two statements, not 300.
    expect(statements.length).toBeLessThanOrEqual(3);
    const states = await store.load('counter', ['k0', 'k1']);
    expect((states.get('k0')?.state as CounterState).count).toBe(42);
    expect((states.get('k0')?.state as CounterState).outOfOrder).toBe(0);
  });

  it('drops a partition fenced by a newer owner, replying to nothing it could not commit', async () => {
    const { store, worker, lost, ask, replies } = setup();
    const epoch = await store.takeFence('counter', 0, 'w1');
    await store.takeFence('counter', 0, 'w2'); // another worker took it meanwhile
    ask('a', { kind: 'add' });
    worker.add(0, epoch, performance.now() + 60_000);
    running = worker;
    worker.start();
    await until(() => lost.length > 0);
    expect(lost).toEqual([0]);
    expect(replies()).toEqual([]);
    expect((await store.load('counter', ['a'])).size).toBe(0);
  });

  it('replays after a failed settle without applying anything twice', async () => {
    let failOnce = true;
    const { store, worker, ask, replies } = setup({
      mailbox: (m) => ({
        ...m,
        partition: (p) => m.partition(p),
        read: (c, n, b) => m.read(c, n, b),
        interrupt: () => m.interrupt(),
        open: () => m.open(),
        close: () => m.close(),
        settleMany: (batches) => {
          if (failOnce && batches.some((b) => b.ids.length > 0)) {
            failOnce = false; // committed, but the acknowledgements never reach the mailbox
            return Promise.reject(new Error('connection lost'));
          }
          return m.settleMany(batches);
        },
      }),
    });
    const epoch = await store.takeFence('counter', 0, 'w1');
    for (let i = 1; i <= 20; i++) ask('k', { kind: 'add', by: 1, seq: i });
    worker.add(0, epoch, performance.now() + 60_000);
    running = worker;
    worker.start();
    // The replayed entries are skipped as redeliveries and acknowledged; the next ask applies once.
    await until(() => !failOnce);
    ask('k', { kind: 'add', by: 1, seq: 21 });
    await until(() => replies().some((r) => r.corr === 'c21'));
    const state = (await store.load('counter', ['k'])).get('k')?.state as CounterState;
    expect(state).toMatchObject({ count: 21, applied: 21, outOfOrder: 0 });
  });
});
