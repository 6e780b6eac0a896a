import type { OutageSignal } from './ports.js';

/**
 * Exponential back-off with full jitter, for loops that must survive connection loss. By default
 * it grows to a second, no more: a store that comes back by itself (a Redis Cluster replica
 * promoted in two seconds) must be found again within a second, not after a five-second sleep
 * that the outage's own failures grew; those sleeps outlived the asks waiting on them (504s seen
 * after a Redis failover). A failing retry a second is no load on a store that is down.
 */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly baseMs = 50,
    private readonly maxMs = 1_000,
  ) {}

  /** The next delay; grows until {@link reset}. */
  next(): number {
    const cap = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(cap / 2 + Math.random() * (cap / 2));
  }

  get failures(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A back-off that ends early when the store it waits out is back (its watch sees the return
 * within a second): the work that failed is retried at once, not at the end of a long delay.
 */
export async function sleepUnlessBack(ms: number, store: OutageSignal | undefined): Promise<void> {
  const back = new AbortController();
  const unsubscribe = store?.onChange((down) => down === undefined && back.abort());
  try {
    await sleep(ms, back.signal);
  } finally {
    unsubscribe?.();
  }
}
