import type { RawEntry } from './ports.js';

/**
 * Whether a blocking read's answer is only the head of a burst, so the worker should read again at
 * once (without blocking) before it applies anything: the answer holds one stream's entries, fewer
 * than the round before (`previousRound` entries, every partition counted).
 *
 * Why a burst arrives cut: Redis 7.0 (the version this was measured on) serves a client blocked in
 * XREADGROUP on several streams with the entries of the first stream that became ready, and no
 * other, right after the command that added them. (Later versions run a woken read again, and may
 * answer with every stream that has entries: then this rarely fires. Only 7.0 was measured.)
 * Under load, the askers a round has just answered send their next asks together, one script
 * call from each gateway (mailbox-writer.ts), so a blocked worker woke with one mailbox's share
 * of them, and the rest waited for the next round. (Before the gateways wrote their asks in
 * one call, Redis woke the worker after the first command of their pipeline: one entry.) Rounds
 * alternated between a few entries and all the others, each paying a round's fixed cost (a commit
 * with its WAL flush, a settle script, the wake-ups of three processes): at 64 echo askers half
 * the commits held a single entry. By the time the worker has that answer, the rest is in the
 * streams (a burst from several gateways may still straddle two rounds), so the second read finds
 * it. A read that found entries waiting, without blocking, answers with every stream that has
 * some, so it is not read again. A heuristic, then, that costs one non-blocking read when it
 * misses. A lone asker, whose rounds hold one entry each, never reads twice.
 */
export function topUpAfter(previousRound: number, got: number, streams: number, batch: number): boolean {
  // At `batch` entries the stream may hold more, but a round reads a partition's batch at most.
  return streams === 1 && got > 0 && got < previousRound && got < batch;
}

/**
 * One round's read: `read` once with `blockMs`, then, when `again` says so for the entries it
 * got, once more without blocking, each partition's second entries appended after its first (ids
 * only grow, so stream order holds). Returns the entries per partition and how many in all.
 */
export async function readRound(
  read: (blockMs: number | undefined) => Promise<Map<number, RawEntry[]>>,
  blockMs: number,
  again: (got: number, streams: number) => boolean,
): Promise<{ byPartition: Map<number, RawEntry[]>; got: number }> {
  const byPartition = await read(blockMs);
  let got = 0;
  for (const raw of byPartition.values()) got += raw.length;
  if (!again(got, byPartition.size)) return { byPartition, got };
  for (const [p, raw] of await read(undefined)) {
    byPartition.set(p, [...(byPartition.get(p) ?? []), ...raw]);
    got += raw.length;
  }
  return { byPartition, got };
}
