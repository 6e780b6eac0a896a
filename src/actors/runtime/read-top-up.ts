import type { RawEntry } from './mailbox-ops.js';

/**
 * Whether a blocking read's answer is only the head of a burst, so the worker should read again at
 * once (without blocking) before it applies anything: the read came back with a single entry,
 * after a round of more (`previousRound` entries, every partition counted).
 *
 * Why a burst arrives cut: Redis serves a client blocked in XREADGROUP right after the first
 * command that adds to one of its streams, even in the middle of a pipeline, so a blocked read
 * wakes with exactly one entry. Under load, the askers a round has just answered send their next
 * asks together (one auto-pipelined write from each gateway), so a blocked worker woke with the
 * first of them alone, and the rest waited for the next round. Rounds alternated between one entry
 * and all the others, each paying a round's fixed cost (a commit with its WAL flush, a settle
 * script, the wake-ups of three processes): at 64 echo askers half the commits held a single
 * entry. By the time the worker has that answer, the rest of that write is usually in the
 * stream (Redis sends replies only after it has run every command it read in that pass: a write
 * larger than its 16 KB read buffer, or bursts from several gateways, may still straddle two
 * rounds), so the second read finds it. A heuristic, then, that costs one non-blocking read when
 * it misses. A lone asker, whose rounds hold one entry each, never reads twice.
 */
export function topUpAfter(previousRound: number, got: number): boolean {
  return got === 1 && previousRound > 1;
}

/**
 * One round's read: `read` once with `blockMs`, then, when `again` says so for the entries it
 * got, once more without blocking, each stream's second entries appended after its first (ids
 * only grow, so stream order holds). Returns the entries per stream and how many in all.
 */
export async function readRound(
  read: (blockMs: number | undefined) => Promise<Map<string, RawEntry[]>>,
  blockMs: number,
  again: (got: number) => boolean,
): Promise<{ byStream: Map<string, RawEntry[]>; got: number }> {
  const byStream = await read(blockMs);
  let got = 0;
  for (const raw of byStream.values()) got += raw.length;
  if (!again(got)) return { byStream, got };
  for (const [stream, raw] of await read(undefined)) {
    byStream.set(stream, [...(byStream.get(stream) ?? []), ...raw]);
    got += raw.length;
  }
  return { byStream, got };
}
