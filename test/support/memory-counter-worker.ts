import { counterActor } from '../../src/actors/counter/index.js';
import { encodeEntry } from '../../src/actors/runtime/entry-codec.js';
import { MemoryLeaseTable } from '../../src/actors/runtime/memory-leases.js';
import { MemoryMailboxes } from '../../src/actors/runtime/memory-mailbox.js';
import { partitionOf } from '../../src/actors/runtime/partitioning.js';
import type { Mailbox, OutageSignal, SnapshotStore } from '../../src/actors/runtime/ports.js';
import { Runtime, type RuntimeOptions } from '../../src/actors/runtime/runtime.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';

/** One partition, short leases and reads: a unit test's worker reacts within milliseconds. */
const options: RuntimeOptions = {
  partitions: 1,
  leaseTtlMs: 300,
  batch: 64,
  blockMs: 20,
  maxDeliveries: 100,
  cacheSize: 1_000,
  trimEveryMs: 60_000,
};

export interface CounterWorker {
  runtime: Runtime;
  /** Sends an `add` to counter `k`, answered on the replies stream under `corr`. */
  ask: (corr: string) => void;
  /** Whether `corr` was answered with success. */
  answered: (corr: string) => boolean;
  close(): Promise<void>;
}

/**
 * A whole worker (the counter actor) on the in-memory mailboxes and lease table, started, with
 * the store and database watch the test gives; `wrap` may stand between the worker and its
 * mailbox (to make Redis refuse what a test needs refused).
 */
export async function startCounterWorker(o: {
  store: SnapshotStore;
  database?: OutageSignal;
  wrap?: (mailbox: Mailbox) => Mailbox;
}): Promise<CounterWorker> {
  const broker = new MemoryMailboxes();
  const runtime = new Runtime({
    workerId: 'w',
    mailboxOf: (type) => (o.wrap ?? ((m: Mailbox) => m))(broker.mailbox(type, 'w')),
    leases: new MemoryLeaseTable().forWorker('w', options.leaseTtlMs, ['counter']),
    store: o.store,
    ...(o.database ? { database: o.database } : {}),
    log: createLogger('silent', 'test'),
    metrics: createMetrics(),
    actors: [counterActor],
    options,
  });
  broker.openReplies('replies');
  await runtime.start();
  return {
    runtime,
    ask: (corr) =>
      broker.send(
        'counter',
        partitionOf('k', options.partitions),
        encodeEntry({ key: 'k', kind: 'add', body: JSON.stringify({ kind: 'add' }), reply: 'replies', corr, ts: 0 }),
      ),
    answered: (corr) => (broker.replies.get('replies') ?? []).some((r) => r.corr === corr && r.ok),
    close: () => runtime.close(),
  };
}
