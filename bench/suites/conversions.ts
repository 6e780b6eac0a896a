import postgres from 'postgres';
import type { ActorClient } from '../../src/store/redis/actor-client.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';

const POOL = 'CARBON-USDC';
/** Reserves deep enough that no level moves the price far: 10^9 of each, in micro-units. */
const DEPTH = '1000000000000000';

/**
 * The token conversion flow (issue 26) at the actors: swaps asked straight of the one pool (it
 * serialises every swap: the ceiling of the flow), and whole conversion sagas over many accounts
 * (start, hold, swap, capture: four actor steps joined by three tells through the outbox relay),
 * each counted when the saga has completed.
 */
export async function conversions(
  env: BenchEnv,
  client: ActorClient,
  concurrency: number,
  accounts: number,
  afterSeeding: () => Promise<void> = () => Promise.resolve(),
): Promise<{ swaps: LevelResult; sagas: LevelResult }> {
  await client.ask('pool', POOL, {
    kind: 'deposit',
    id: 'bench-seed',
    deposits: { CARBON: DEPTH, USDC: DEPTH },
    feeBps: 30,
  });
  const dids = Array.from({ length: accounts }, (_, i) => `did:key:zbench-trader-${i}`);
  for (let i = 0; i < dids.length; i += 500) {
    await Promise.all(
      dids
        .slice(i, i + 500)
        .map((did) =>
          client.ask('account', did, { kind: 'credit', id: 'bench-grant', asset: 'CARBON', amount: DEPTH }),
        ),
    );
  }
  await afterSeeding();

  let n = 0;
  // Alternate directions so the reserves stay where they started.
  const swaps = await closedLoop(concurrency, env.seconds * 1000, (_w, i) =>
    client.ask('pool', POOL, {
      kind: 'swap',
      id: `bench-swap-${n++}`,
      account: dids[i % dids.length]!,
      assetIn: i % 2 === 0 ? 'CARBON' : 'USDC',
      amountIn: '1000000',
      minOut: '0',
    }),
  );

  // A saga replies once it has started; it is done when its read model says so. One poller asks
  // for every saga in flight every 5 ms (a query per saga would load PostgreSQL more than the sagas).
  // Index scans only: conversion_views was analyzed empty before the sagas, and with that the
  // planner scanned the whole table for each saga polled (1.5 ms a poll, growing with the run).
  const sql = postgres(env.databaseUrl, {
    max: 2,
    onnotice: () => undefined,
    connection: { search_path: env.schema, enable_seqscan: 'off' },
  });
  const waiting = new Map<string, { done: () => void; fail: (e: Error) => void }>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      try {
        await pollOnce();
      } catch (err) {
        // A failed read fails the sagas waiting on it (counted as errors), never hangs them.
        for (const w of waiting.values()) w.fail(err instanceof Error ? err : new Error(String(err)));
        waiting.clear();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  async function pollOnce(): Promise<void> {
    const ids = [...waiting.keys()];
    if (ids.length === 0) return;
    // One statement text whatever the count (an IN list of n parameters is a new statement per n,
    // planned each time), and each id found by the primary key: pg_stat_statements measured the
    // IN form at 4 ms a poll, a fifth of a core of PostgreSQL taken from the sagas it measures.
    const rows = await sql<{ key: string; status: string }[]>`
      SELECT v.key, v.status FROM unnest(${sql.array(ids)}::text[]) AS k(key)
      CROSS JOIN LATERAL (SELECT key, status FROM conversion_views WHERE key = k.key) v
      WHERE v.status IN ('completed', 'failed', 'rejected')`;
    for (const r of rows) {
      const w = waiting.get(r.key);
      waiting.delete(r.key);
      if (r.status === 'completed') w?.done();
      else w?.fail(new Error(`saga ${r.key} ${r.status}`));
    }
  }
  try {
    let m = 0;
    const sagas = await closedLoop(concurrency, env.seconds * 1000, async (w, i) => {
      const id = `cv_bench_${m++}`;
      const ended = new Promise<void>((done, fail) => waiting.set(id, { done, fail }));
      // Awaited below; marked handled now, since a failed start leaves it unawaited.
      ended.catch(() => undefined);
      await client.ask('conversion', id, {
        kind: 'start',
        fingerprint: '0'.repeat(64),
        account: dids[(w * 7919 + i) % dids.length]!,
        pool: POOL,
        assetIn: 'CARBON',
        amountIn: '1000000',
        minOut: '0',
      });
      await ended;
    });
    return { swaps, sagas };
  } finally {
    polling = false;
    await poller;
    await sql.end();
  }
}
