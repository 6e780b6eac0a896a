/**
 * Signatures seen, in memory (what Redis's `SET … NX EX` keeps across gateways), for the product
 * tier's tests: `firstSeen` answers false for a digest seen within its time to live. Not for
 * deployments: a second gateway would take a replayed signature.
 */
export function memoryReplayGuard(
  now: () => number = Date.now,
): (digest: string, ttlSeconds: number) => Promise<boolean> {
  const until = new Map<string, number>();
  return (digest, ttlSeconds) => {
    const t = now();
    // Bounded, as Redis's keys expire.
    if (until.size > 10_000) for (const [d, u] of until) if (u <= t) until.delete(d);
    const seen = (until.get(digest) ?? 0) > t;
    if (!seen) until.set(digest, t + ttlSeconds * 1000);
    return Promise.resolve(!seen);
  };
}
