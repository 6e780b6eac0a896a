import { afterEach, describe, expect, it } from 'vitest';
import type { CounterState } from '../../../../src/actors/counter/index.js';
import type { Mailbox } from '../../../../src/actors/runtime/ports.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';
import { startCounterWorker, type CounterWorker } from '../../../support/memory-counter-worker.js';

/**
 * A round commits, then Redis refuses its acknowledgements and replies (a master just died).
 * The replay finds the entries applied and would acknowledge them without a word: the asker
 * must still get its reply, and the message must be applied once.
 */

const running: CounterWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.close()));
});

describe('a committed round whose settle Redis refused', () => {
  it('sends its replies again before reading on: the asker is answered, the message applied once', async () => {
    const store = new MemorySnapshotStore();
    let refuse = 2;
    const refusing = (real: Mailbox): Mailbox =>
      new Proxy(real, {
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
    const worker = await startCounterWorker({ store, wrap: refusing });
    running.push(worker);
    worker.ask('c1');
    const deadline = Date.now() + 5_000;
    const answered = () => worker.answered('c1');
    while (!answered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(refuse).toBe(0);
    expect(answered()).toBe(true);
    const slot = (await store.load('counter', ['k'])).get('k');
    expect((slot?.state as CounterState | undefined)?.count).toBe(1);
  }, 10_000);
});
