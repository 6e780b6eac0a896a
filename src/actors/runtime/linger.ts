import type { PersistencePolicy } from './types.js';

/** Entries in a round from which the next read lingers (below it, load is light: read at once). */
export const LINGER_FROM_ENTRIES = 16;

/** How long the next read waits after such a round, ms. */
export const LINGER_MS = 1;

/**
 * How long a commit-before-reply worker waits before its next read, after a round of `read`
 * (entries per partition): PostgreSQL's `commit_delay`, for mailboxes. Under load, the askers a
 * commit has just answered send again within a millisecond; read at once, the next round holds
 * only what arrived during the commit, and the load splits into two half-size commits, each
 * paying a round's fixed cost (a statement, its WAL flush, the wake-ups of three processes).
 * Measured at 64 echo askers: better in 5 of 6 alternating pairs (mean ~9.1k → ~10.9k asks/s);
 * 2 ms was no better and worse at p99; 512 askers and a lone asker are unchanged (a round of one
 * never lingers). Write-behind types reply before they commit: nothing to gather.
 */
export function lingerAfter(read: ReadonlyMap<unknown, readonly unknown[]>, mode: PersistencePolicy['mode']): number {
  if (mode !== 'commit-before-reply') return 0;
  let entries = 0;
  for (const r of read.values()) entries += r.length;
  return entries >= LINGER_FROM_ENTRIES ? LINGER_MS : 0;
}
