import type { Buckets } from './rate-limits.js';

/**
 * The rate limits' buckets in memory (GCRA, the rule of rate-limits.ts's script: one "theoretical
 * arrival time" per key), for the product tier's tests: limits then hold per process, not across
 * gateways. Not for deployments.
 */
export function memoryBuckets(now: () => number = Date.now): Buckets {
  const arrivals = new Map<string, number>();
  return (c) => {
    const t = now();
    // Bounded, as Redis's keys expire: a bucket whose arrival time has passed holds nothing.
    if (arrivals.size > 10_000) for (const [k, at] of arrivals) if (at <= t) arrivals.delete(k);
    const tat = Math.max(arrivals.get(c.key) ?? 0, t);
    const wait = Math.max(0, tat - t - (c.burst - 1) * c.interval);
    if (c.mode === 'charge' || (c.mode === 'take' && wait === 0)) {
      // Never more than one full allowance ahead: failures past it do not push a lock-out further.
      arrivals.set(c.key, Math.min(tat + c.interval, t + c.burst * c.interval));
    }
    return Promise.resolve(wait);
  };
}
