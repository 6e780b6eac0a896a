import { afterEach, describe, expect, it } from 'vitest';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { MemoryLeaseTable } from '../../../../src/actors/runtime/memory-leases.js';
import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import type { Mailbox } from '../../../../src/actors/runtime/ports.js';
import { Runtime, type RuntimeOptions } from '../../../../src/actors/runtime/runtime.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/**
 * A round commits, then Redis refuses its acknowledgements and replies (a master just died).
 * The replay finds the entries applied and would acknowledge them without a word: the asker
 * must still get its reply, and the message must be applied once.
 */
const options: RuntimeOptions = {
  partitions: 1,
  leaseTtlMs: 300,
  batch: 64,
  blockMs: 20,
  maxDeliveries: 100,
  cacheSize: 1_000,
  trimEveryMs: 60_000,
};

const running: Runtime[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe('a committed round whose settle Redis refused', () => {
  it('sends its replies again before reading on: the asker is answered, the message applied once', async () => {
    const broker = new MemoryMailboxes();
    const store = new MemorySnapshotStore();
    let refuse = 2;
    const mailboxOf = (type: string): Mailbox => {
      const real = broker.mailbox(type, 'w');
      return new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === 'settleMany') {
            return (batches: Parameters<Mailbox['settleMany']>[0]) => {
              if (refuse > 0 && batches.some((b) => b.replies.length > 0)) {
                refuse--;
                return Promise.reject(new Error('connect ECONNREFUSED'));
              }
              return target.settleMany(batches);
            };
          }
          const value: unknown = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    const runtime = new Runtime({
      workerId: 'w',
      mailboxOf,
      leases: new MemoryLeaseTable().forWorker('w', options.leaseTtlMs, ['counter']),
      store,
      log: createLogger('silent', 'test'),
      metrics: createMetrics(),
      actors: [counterActor],
      options,
    });
    running.push(runtime);
    broker.openReplies('replies');
    await runtime.start();
    broker.send(
      'counter',
      partitionOf('k', options.partitions),
      encodeEntry({
        key: 'k',
        kind: 'add',
        body: JSON.stringify({ kind: 'add' }),
        reply: 'replies',
        corr: 'c1',
        ts: 0,
      }),
    );
    const deadline = Date.now() + 5_000;
    const answered = () => (broker.replies.get('replies') ?? []).some((r) => r.corr === 'c1' && r.ok);
    while (!answered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(refuse).toBe(0);
    expect(answered()).toBe(true);
    const slot = (await store.load('counter', ['k'])).get('k');
    expect((slot?.state as CounterState | undefined)?.count).toBe(1);
  }, 10_000);
});
