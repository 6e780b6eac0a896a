import { afterEach, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { MemoryLeaseTable } from '../../../../src/actors/runtime/memory-leases.js';
import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { Runtime, type RuntimeOptions } from '../../../../src/actors/runtime/runtime.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/**
 * The whole worker role (membership, leases, fencing, type workers) on the in-memory adapters:
 * the runtime takes its mailboxes and its lease table from outside and needs no Redis.
 */
const options: RuntimeOptions = {
  partitions: 4,
  leaseTtlMs: 300,
  batch: 64,
  blockMs: 20,
  maxDeliveries: 3,
  cacheSize: 1_000,
  trimEveryMs: 60_000,
};
const REPLIES = 'replies';
const actors = [counterActor as ActorDefinition];

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const broker = new MemoryMailboxes();
const leases = new MemoryLeaseTable();
const store = new MemorySnapshotStore();
const running: Runtime[] = [];

function worker(id: string): Runtime {
  const runtime = new Runtime({
    workerId: id,
    mailboxOf: (type) => broker.mailbox(type, id),
    leases: leases.forWorker(
      id,
      options.leaseTtlMs,
      actors.map((a) => a.type),
    ),
    store,
    log: createLogger('silent', 'test'),
    metrics: createMetrics(),
    actors,
    options,
  });
  running.push(runtime);
  return runtime;
}

let corr = 0;
function ask(key: string): string {
  const id = `c${++corr}`;
  broker.send(
    'counter',
    partitionOf(key, options.partitions),
    encodeEntry({ key, kind: 'add', body: JSON.stringify({ kind: 'add' }), reply: REPLIES, corr: id, ts: 0 }),
  );
  return id;
}
const answered = (ids: readonly string[]) => {
  const got = new Set((broker.replies.get(REPLIES) ?? []).filter((r) => r.ok).map((r) => r.corr));
  return ids.every((id) => got.has(id));
};

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe('Runtime on the in-memory mailboxes and lease table', () => {
  it('deals the partitions over two workers, answers every ask, and hands all to the one left', async () => {
    broker.openReplies(REPLIES);
    const a = worker('w-a');
    const b = worker('w-b');
    await a.start();
    await b.start();
    // Each membership tick renews, hands back or takes: two ticks after b joined, the deal is even.
    await until(() => a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2);
    expect(new Set([...a.ownedPartitions(), ...b.ownedPartitions()]).size).toBe(4);

    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const first = keys.map(ask);
    await until(() => answered(first));

    await a.close();
    await until(() => b.ownedPartitions().length === 4);
    const second = keys.map(ask);
    await until(() => answered(second));
    const states = await store.load('counter', keys);
    // Every key was added to twice, by two owners of its partition, once each.
    expect(keys.map((k) => (states.get(k)?.state as CounterState | undefined)?.count)).toEqual(keys.map(() => 2));
  });
});

describe('MemoryLeaseTable', () => {
  it('gives a free lease to one worker at a time, until it lapses or is released', async () => {
    let now = 1_000;
    const table = new MemoryLeaseTable(() => now);
    const one = table.forWorker('one', 100, ['t']);
    const two = table.forWorker('two', 100, ['t']);
    expect(await one.acquire('t', 0)).toBe(true);
    expect(await two.acquire('t', 0)).toBe(false);
    expect(await two.renew('t', 0)).toBe(false);
    await two.release('t', 0); // not its lease: a no-op
    expect(await two.acquire('t', 0)).toBe(false);
    now += 99;
    expect(await one.renew('t', 0)).toBe(true);
    now += 100;
    expect(await two.acquire('t', 0)).toBe(true);
    expect(await one.renew('t', 0)).toBe(false);
    await two.release('t', 0);
    expect(await one.acquire('t', 0)).toBe(true);
  });

  it('lists the live workers per type and drops one a TTL after its last heartbeat', async () => {
    let now = 0;
    const table = new MemoryLeaseTable(() => now);
    const one = table.forWorker('one', 100, ['t', 'u']);
    const two = table.forWorker('two', 100, ['t']);
    await one.heartbeat();
    expect((await two.heartbeat()).get('t')).toEqual(['one', 'two']);
    now += 150;
    const seen = await two.heartbeat();
    expect(seen.get('t')).toEqual(['two']);
    expect((await one.heartbeat()).get('u')).toEqual(['one']);
    await two.leave();
    expect((await one.heartbeat()).get('t')).toEqual(['one']);
  });
});
