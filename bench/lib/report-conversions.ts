import { fmt, type LevelResult } from './measure.js';

/** The token conversion section of BENCHMARKS.md, as ratios to the echo ask at the same concurrency. */
export function renderConversions(
  c: { swaps: LevelResult; sagas: LevelResult },
  echo: LevelResult | undefined,
): string {
  const row = (name: string, r: LevelResult): string =>
    `| ${name} | ${r.concurrency} | ${fmt.rate(r.perSecond)} | ${fmt.ms(r.p50Ms)} | ${fmt.ms(r.p99Ms)} | ${r.errors} | **${fmt.ratio(r.perSecond, echo?.perSecond ?? NaN)}** |`;
  return `## Token conversion: swaps through one pool, conversion sagas over 1,000 accounts

Swaps are asked straight of the one pool actor (it serialises every swap, so this is the flow's
ceiling; each answer is a fill, its ledger entry, the pool's snapshot of its
reserves, and the swap's outcome as a fact beside it). A conversion is the whole saga: the start, then a hold on the trader's
account that tells the pool to swap, whose fill tells the account to capture, whose answer
completes the saga: five actor steps in a row, each committed before its tell is sent through the
outbox relay; it is counted when its read model says completed. Measured at the actors, as the
redemptions above.

| What | Concurrent | per second | p50 ms | p99 ms | errors | vs echo ask() at 64 |
|---|---|---|---|---|---|---|
${row('swaps through one pool', c.swaps)}
${row('conversions (sagas), 1,000 accounts', c.sagas)}

A conversion is five actor steps one after another, each committed before the next is told (a commit writes its batch's tells as one outbox row; the worker posts them right
after it in one call, then deletes those rows, one statement at a time for whatever has piled
up), two of them writing the saga's snapshot and read model row, and one a ledger entry
(docs/scaling.md says where the time goes).
`;
}

/** Puts the section before the USSD one (or at the end). */
export function withConversionSection(markdown: string, section: string): string {
  const at = markdown.indexOf('## USSD');
  return at < 0 ? `${markdown.trimEnd()}\n\n${section}\n` : `${markdown.slice(0, at)}${section}\n${markdown.slice(at)}`;
}
