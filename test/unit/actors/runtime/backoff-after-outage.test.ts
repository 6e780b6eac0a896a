import { afterEach, describe, expect, it } from 'vitest';
import type { BatchCommit, OutageSignal, Slot } from '../../../../src/actors/runtime/ports.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';
import { startCounterWorker, type CounterWorker } from '../../../support/memory-counter-worker.js';

/**
 * A worker's rounds fail for as long as PostgreSQL is down, and its back-off grows with them.
 * When the database watch says it is back, the next round may still fail once (a pooled
 * connection the outage left dead): its retry must come at once, not after the grown delay.
 */
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

const running: CounterWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.close()));
});

describe('a worker after a PostgreSQL outage', () => {
  it('retries a round that fails once more after the return at once, not after the back-off the outage grew', async () => {
    const store = new OutageStore();
    const watch = new Watch();
    const worker = await startCounterWorker({ store, database: watch });
    running.push(worker);
    const { ask, answered } = worker;

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
