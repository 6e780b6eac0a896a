import postgres from 'postgres';
import type { ActorClient } from '../../src/store/redis/actor-client.js';
import { accountRef } from '../../src/actors/account/index.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';
import { seedVouchers } from './vouchers.js';

/**
 * Redemptions by one supplier against redemptions spread over 64 (issue 38): every redemption
 * credits its supplier's account (pending until a claim is decided; since migration 027 in the
 * voucher's own commit, as a fact and a tally of the account's), so one supplier's account
 * receives every credit. Nothing of it may grow with them, and the two rates should be alike. Measured at the actors over 10,000 vouchers.
 */
export async function supplierRedemptions(
  env: BenchEnv,
  client: ActorClient,
  concurrency: number,
  afterSeeding: () => Promise<void> = () => Promise.resolve(),
  /** Told when the one supplier's level starts and ends (its drain included): to measure CPU over it. */
  hotWindow?: { start(): void; stop(): void },
): Promise<{ spread: LevelResult; hot: LevelResult }> {
  const ids = await seedVouchers(client, 'suppliers', 10_000, 1e15);
  await afterSeeding();
  let n = 0;
  /**
   * A level counts a redemption once its supplier's account has it too: the loop's rate is taken
   * over the loop and the time the accounts then needed to take every credit told to them.
   */
  const level = async (
    supplier: (worker: number) => string,
    window?: { start(): void; stop(): void },
  ): Promise<LevelResult> => {
    const credited = new Map<string, number>();
    let stopped = false;
    const r = await closedLoop(
      concurrency,
      env.seconds * 1000,
      async (w, i) => {
        const did = supplier(w);
        await redeem(client, ids[(i * 7919 + w * 104729) % ids.length]!, did, `s-${n++}`);
        credited.set(did, (credited.get(did) ?? 0) + 1);
      },
      1_000,
      window && { start: () => window.start(), stop: () => (stopped = true) },
    );
    const started = performance.now();
    await untilCredited(client, credited);
    if (window && stopped) window.stop();
    const seconds = r.seconds + (performance.now() - started) / 1000;
    return { ...r, seconds, perSecond: r.ops / seconds };
  };
  const spread = await level((w) => `did:key:zbench-supplier-${w}`);
  const hot = await level(() => 'did:key:zbench-hot-supplier', hotWindow);
  return { spread, hot };
}

/**
 * Waits until every supplier's account holds, pending, at least the credits of the redemptions
 * counted for it (each redemption credits 1 micro-unit; the warm-up's come on top).
 */
async function untilCredited(client: ActorClient, credited: ReadonlyMap<string, number>): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (const [did, count] of credited) {
    for (;;) {
      const view = await client.ask(accountRef, did, { kind: 'get' });
      if (Number(view.balances.CARBON?.pending ?? 0) >= count) break;
      if (Date.now() > deadline) throw new Error(`account ${did} did not take its credits within 120 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * The growth run: one supplier redeems (64 at once, over 10,000 vouchers) until `total`
 * redemptions wait on a regulator, and the rate of each `windowSeconds` window is kept. A snapshot
 * that grew with the unsettled credits would slow every window more than the last.
 */
export async function growthRun(
  env: BenchEnv,
  client: ActorClient,
  concurrency: number,
  total: number,
  windowSeconds: number,
  progress: (line: string) => void,
  /**
   * Runs between windows, not counted: the run vacuums there, as autovacuum would (it is off on
   * this machine, and a queue table's dead rows would otherwise slow every window more).
   */
  betweenWindows: () => Promise<void> = () => Promise.resolve(),
  /**
   * A CPU meter per window (worker, PostgreSQL, Redis): CPU per redemption does not drift with
   * this VM's speed as a rate does, so it tells growth from a slow stretch of the machine.
   */
  meter?: () => { start(): void; stop(): void; spent(): Record<string, number> },
): Promise<{ windows: Array<LevelResult & { cpuUs?: number }>; unsettled: number; drainSeconds: number }> {
  const ids = await seedVouchers(client, 'growth', 10_000, 1e15);
  await betweenWindows();
  const supplier = 'did:key:zbench-growing-supplier';
  const windows: Array<LevelResult & { cpuUs?: number }> = [];
  let n = 0;
  let done = 0;
  while (done < total) {
    const m = meter?.();
    const w = await closedLoop(
      concurrency,
      windowSeconds * 1000,
      async (worker, i) => {
        await redeem(client, ids[(i * 7919 + worker * 104729) % ids.length]!, supplier, `g-${n++}`);
        done++;
      },
      0,
      m,
    );
    const spent = m ? Object.values(m.spent()).reduce((a, b) => a + b, 0) : NaN;
    const cpuUs = (spent * 1000) / w.ops;
    windows.push({ ...w, cpuUs });
    progress(
      `  window ${windows.length}: ${Math.round(w.perSecond)}/s, ${Math.round(cpuUs)} µs of CPU each (${done} redeemed)`,
    );
    if (done < total) await betweenWindows();
  }
  // Every credit reached the account: the windows measured the whole path, not a growing backlog.
  const started = performance.now();
  await untilCredited(client, new Map([[supplier, done]]));
  return { windows, unsettled: done, drainSeconds: (performance.now() - started) / 1000 };
}

function redeem(client: ActorClient, voucherId: string, supplierDid: string, requestId: string) {
  return client.ask('voucher', voucherId, { kind: 'redeem', requestId, supplierDid, productId: 'stove', amount: 1 });
}

/** What the run's snapshots weigh per actor type, as stored (JSON text bytes): mean and largest. */
export async function snapshotBytes(
  env: BenchEnv,
): Promise<Array<{ type: string; actors: number; mean: number; max: number }>> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const rows = await sql<{ type: string; actors: string; mean: string; max: string }[]>`
      SELECT type, count(*) AS actors, round(avg(octet_length(state::text))) AS mean, max(octet_length(state::text)) AS max
      FROM ${sql(env.schema)}.actor_snapshots GROUP BY type ORDER BY type`;
    return rows.map((r) => ({ type: r.type, actors: Number(r.actors), mean: Number(r.mean), max: Number(r.max) }));
  } finally {
    await sql.end();
  }
}
