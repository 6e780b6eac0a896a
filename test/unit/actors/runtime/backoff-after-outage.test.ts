import { afterEach, describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { MemoryLeaseTable } from '../../../../src/actors/runtime/memory-leases.js';
import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import type { BatchCommit, OutageSignal, Slot } from '../../../../src/actors/runtime/ports.js';
import { Runtime, type RuntimeOptions } from '../../../../src/actors/runtime/runtime.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/**
 * A worker's rounds fail for as long as PostgreSQL is down, and its back-off grows with them.
 * When the database watch says it is back, the next round may still fail once (a pooled
 * connection the outage left dead): its retry must come at once, not after the grown delay.
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

/** A store that fails every load and commit while `down`, and `deadAfterReturn` more times after. */
class OutageStore extends MemorySnapshotStore {
  down = false;
  deadAfterReturn = 0;
  private fail(): void {
    if (this.down) throw new Error('ECONNREFUSED');
    if (this.deadAfterReturn > 0) {
      this.deadAfterReturn--;
      throw new Error('write CONNECTION_DESTROYED');
    }
  }
  override async load(type: string, keys: readonly string[]): Promise<Map<string, Slot>> {
    this.fail();
    return super.load(type, keys);
  }
  override async commitMany(batches: readonly BatchCommit[]): Promise<Set<string>> {
    this.fail();
    return super.commitMany(batches);
  }
}

/** The database watch, driven by the test. */
class Watch implements OutageSignal {
  private cause: string | undefined;
  private readonly listeners = new Set<(down: string | undefined) => void>();
  current(): string | undefined {
    return this.cause;
  }
  onChange(listener: (down: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(cause: string | undefined): void {
    this.cause = cause;
    for (const l of this.listeners) l(cause);
  }
}

const running: Runtime[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe('a worker after a PostgreSQL outage', () => {
  it('retries a round that fails once more after the return at once, not after the back-off the outage grew', async () => {
    const broker = new MemoryMailboxes();
    const store = new OutageStore();
    const watch = new Watch();
    const runtime = new Runtime({
      workerId: 'w',
      mailboxOf: (type) => broker.mailbox(type, 'w'),
      leases: new MemoryLeaseTable().forWorker('w', options.leaseTtlMs, ['counter']),
      store,
      database: watch,
      log: createLogger('silent', 'test'),
      metrics: createMetrics(),
      actors: [counterActor],
      options,
    });
    running.push(runtime);
    broker.openReplies('replies');
    await runtime.start();
    const answered = (corr: string) => (broker.replies.get('replies') ?? []).some((r) => r.corr === corr && r.ok);
    const ask = (corr: string) =>
      broker.send(
        'counter',
        partitionOf('k', options.partitions),
        encodeEntry({ key: 'k', kind: 'add', body: JSON.stringify({ kind: 'add' }), reply: 'replies', corr, ts: 0 }),
      );

    // Two seconds down under an ask: the rounds fail and the delays grow (25–50 ms up to 0.8–1.6 s).
    store.down = true;
    watch.set('ECONNREFUSED');
    ask('during');
    await new Promise((r) => setTimeout(r, 2_000));
    expect(answered('during')).toBe(false);

    // Back, but the next round meets a dead connection once.
    store.down = false;
    store.deadAfterReturn = 1;
    watch.set(undefined);
    const back = performance.now();
    while (!answered('during') && performance.now() - back < 5_000) await new Promise((r) => setTimeout(r, 5));
    expect(answered('during')).toBe(true);
    expect(store.deadAfterReturn).toBe(0);
    expect(performance.now() - back).toBeLessThan(400);
  }, 15_000);
});
