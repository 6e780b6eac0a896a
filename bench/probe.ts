/*
 * `npm run bench:probe`: a quick A/B probe of the ask path, not the full bench. It alternates the
 * bare Redis round trip and the echo ask() at the given concurrencies (BENCH_PROBE_LEVELS, default
 * 64; empty: none) for BENCH_PROBE_ROUNDS rounds (default 3), and prints, per run, the rate, p99 and the CPU
 * each process spent per operation. BENCH_PROBE_FLOOR=1 adds the durable floor;
 * BENCH_PROBE_USSD=50,500 adds USSD hops through a gateway process at those session counts;
 * BENCH_PROBE_CONVERSIONS=64 adds swaps through one pool and conversion sagas over 1,000 accounts at
 * that concurrency. BENCH_PROBE_REDEMPTIONS=64 adds redemptions spread over 64 suppliers and by one,
 * with BENCH_PROBE_GROWTH=50000 the growth run (one supplier up to that many unsettled).
 * BENCH_PROBE_HTTP=64 adds signed redemptions through a gateway process, with each process's CPU.
 * BENCH_PROBE_REPLICATION=1 adds the echo ask and redemptions on one PostgreSQL and on a
 * pg_auto_failover pair (synchronous replication), back to back.
 * On a cluster (REDIS_URL=redis+cluster://…) the bare and floor runs are left out: their responder
 * speaks to one Redis.
 * Nothing is written: BENCHMARKS.md comes from `npm run bench`.
 */
import { parseRedisTarget } from '../src/common/redis-target.js';
import { nodeArgs } from './lib/child.js';
import { cpuMeter } from './lib/cpu.js';
import { benchEnv, cleanup } from './lib/env.js';
import { closedLoop, fmt, type LevelResult } from './lib/measure.js';
import { bareDurableLimit, bareRedisLimit } from './suites/limits.js';
import { startClient, startWorker } from './suites/runtime.js';
import { ussdHops } from './suites/ussd.js';
import { conversions } from './suites/conversions.js';
import { growthRun, snapshotBytes, supplierRedemptions } from './suites/suppliers.js';
import { vacuumAnalyze } from './lib/quiet.js';
import { replicationCost } from './suites/replication.js';
import { httpRedemptions } from './suites/http-redemptions.js';

const levels = (process.env.BENCH_PROBE_LEVELS ?? '64').split(',').filter(Boolean).map(Number);
const rounds = Number(process.env.BENCH_PROBE_ROUNDS ?? 3);
const ussdLevels = (process.env.BENCH_PROBE_USSD ?? '').split(',').filter(Boolean).map(Number);

function line(label: string, r: LevelResult, cpu?: Record<string, number>): void {
  const perOp = cpu
    ? ' ' +
      Object.entries(cpu)
        .map(([k, ms]) => `${k} ${Math.round((ms * 1000) / r.ops)}`)
        .join(', ') +
      ' µs/op'
    : '';
  process.stdout.write(
    `${label} @${r.concurrency}: ${fmt.rate(r.perSecond)}/s p50 ${fmt.ms(r.p50Ms)} p99 ${fmt.ms(r.p99Ms)} err ${r.errors}${perOp}\n`,
  );
}

/** CPU of every node process less this one's: the responder's (and the idle worker's). */
function responderOnly(spent: Record<'node' | 'postgres' | 'redis' | 'client', number>): Record<string, number> {
  const { node, ...rest } = spent;
  return { responder: node - rest.client, ...rest };
}

/** A USSD level's CPU per hop (µs), back as CPU ms over the level (what `line` divides by hops). */
function cpuMs(u: Awaited<ReturnType<typeof ussdHops>>[number]): Record<string, number> {
  return Object.fromEntries(Object.entries(u.cpuPerHopUs).map(([k, us]) => [k, (us * u.ops) / 1000]));
}

async function main(): Promise<void> {
  const env = benchEnv();
  const onCluster = parseRedisTarget(env.redisUrl).kind === 'cluster';
  const worker = await startWorker(env, {}, nodeArgs(process.env.BENCH_WORKER_ARGS));
  const session = await startClient(env);
  try {
    for (let round = 0; round < rounds; round++) {
      // The responder is the one busy node process besides this one (the worker idles meanwhile).
      const bareMeter = () =>
        cpuMeter({
          node: { command: 'node' },
          postgres: { command: 'postgres' },
          redis: { command: 'redis-server' },
          client: { pid: process.pid },
        });
      // The bare round trip is a one-Redis responder: on a cluster there is none to compare with.
      for (const c of onCluster ? [] : levels) {
        const m = bareMeter();
        for (const r of await bareRedisLimit(env, [c], m)) line('bare', r, responderOnly(m.spent()));
      }
      if (process.env.BENCH_PROBE_FLOOR)
        for (const c of onCluster ? [] : levels) {
          const m = bareMeter();
          for (const r of await bareDurableLimit(env, [c], 1, m)) line('bare+pg', r, responderOnly(m.spent()));
        }
      for (const c of levels) {
        const meter = cpuMeter({
          worker: { pid: worker.proc.pid ?? 0 },
          postgres: { command: 'postgres' },
          redis: { command: 'redis-server' },
          client: { pid: process.pid },
        });
        const r = await closedLoop(
          c,
          env.seconds * 1000,
          (w, i) => session.client.ask('echo', `asker-${c}-${w}`, { kind: 'echo', payload: i }),
          1_000,
          meter,
        );
        line('echo', r, meter.spent());
      }
      if (process.env.BENCH_PROBE_CONVERSIONS && round === 0) {
        const concurrency = Number(process.env.BENCH_PROBE_CONVERSIONS) || 64;
        const c = await conversions(env, session.client, concurrency, 1_000, () => vacuumAnalyze(env, () => undefined));
        line('swaps', c.swaps);
        line('sagas', c.sagas);
      }
      if (process.env.BENCH_PROBE_REDEMPTIONS && round === 0) {
        const concurrency = Number(process.env.BENCH_PROBE_REDEMPTIONS) || 64;
        const vacuum = () => vacuumAnalyze(env, () => undefined);
        const meter = cpuMeter({
          worker: { pid: worker.proc.pid ?? 0 },
          postgres: { command: 'postgres' },
          redis: { command: 'redis-server' },
          client: { pid: process.pid },
        });
        const r = await supplierRedemptions(env, session.client, concurrency, vacuum, meter);
        line('redeem, 64 suppliers', r.spread);
        line('redeem, one supplier', r.hot, meter.spent());
        const growth = Number(process.env.BENCH_PROBE_GROWTH ?? 0);
        if (growth > 0) {
          const g = await growthRun(
            env,
            session.client,
            concurrency,
            growth,
            10,
            (l) => process.stdout.write(`${l}\n`),
            vacuum,
            () =>
              cpuMeter({
                worker: { pid: worker.proc.pid ?? 0 },
                postgres: { command: 'postgres' },
                redis: { command: 'redis-server' },
              }),
          );
          process.stdout.write(`  drained in ${g.drainSeconds.toFixed(1)} s\n`);
        }
        for (const t of await snapshotBytes(env))
          process.stdout.write(`  snapshots ${t.type}: ${t.actors} actors, mean ${t.mean} B, max ${t.max} B\n`);
      }
      if (process.env.BENCH_PROBE_HTTP && round === 0) {
        const concurrency = Number(process.env.BENCH_PROBE_HTTP) || 64;
        const h = await httpRedemptions(
          env,
          concurrency,
          10_000,
          () => vacuumAnalyze(env, () => undefined),
          (gatewayPid) =>
            cpuMeter({
              gateway: { pid: gatewayPid },
              worker: { pid: worker.proc.pid ?? 0 },
              postgres: { command: 'postgres' },
              redis: { command: 'redis-server' },
              client: { pid: process.pid },
            }),
        );
        line('redeem over HTTP, 10,000 vouchers', h.spread, h.cpu?.spread);
        line('redeem over HTTP, one voucher', h.hot, h.cpu?.hot);
      }
      if (process.env.BENCH_PROBE_REPLICATION && round === 0) {
        const r = await replicationCost(env, (l) => process.stdout.write(`${l}\n`));
        if (r) {
          line('echo, one PostgreSQL', r.single.echo);
          line('echo, pg_auto_failover pair', r.pair.echo);
          line('redeem, one PostgreSQL', r.single.redeem);
          line('redeem, pg_auto_failover pair', r.pair.redeem);
        }
      }
      if (ussdLevels.length > 0) {
        const vacuum = () => vacuumAnalyze(env, () => undefined);
        for (const u of await ussdHops(env, worker.proc.pid ?? 0, ussdLevels, vacuum)) line('ussd', u, cpuMs(u));
      }
    }
  } finally {
    await session.close();
    await worker.stop();
    // A cluster's keys stay with the cluster (cleanup speaks to one Redis); its schema goes.
    await cleanup({ ...env, redisUrl: onCluster ? undefined : env.redisUrl });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`probe failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
