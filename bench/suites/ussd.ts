import { nodeArgs } from '../lib/child.js';
import type { BenchEnv } from '../lib/env.js';
import { startGateway } from '../lib/gateway.js';
import { cpuMeter } from '../lib/cpu.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';
import { RawHttpConnection } from '../lib/raw-http.js';

/** The five hops of the measured session: menu, a choice, the next screen, back, home. */
const HOPS = ['', '1', '1*1', '1*1*0', '1*1*0*00'];

/** Seconds of the unmeasured pass that warms the new gateway and the worker's USSD paths. */
const WARM_UP_SECONDS = 3;

/** A level's result, with the CPU each process spent per hop, µs (NaN: not measurable here). */
export interface UssdLevel extends LevelResult {
  cpuPerHopUs: Record<'gateway' | 'worker' | 'postgres' | 'redis' | 'loadGenerator', number>;
}

/**
 * USSD hops through a gateway process in front of the worker: each concurrent session walks
 * five hops (every hop a POST /api/ussd with the cumulative text, an ask to the session actor,
 * its write-behind snapshot), then starts over as a new session. Phones come from a pool of
 * 1,000 unregistered numbers, so the phone look-up is as warm as in steady traffic.
 *
 * An unmeasured pass at the first level's session count comes first, then `between` (the run
 * vacuums there: autovacuum is off here), and `between` again before every later level: each
 * level leaves thousands of new sessions' snapshots behind, and their dead row versions. Without
 * the pass, the first level measured a service that had never served a USSD hop (the gateway's
 * code not yet optimised, the snapshot table new): 6,400-6,600 hops/s at 50 sessions, with
 * PostgreSQL at 32 µs per hop, against 8,200-8,400 and 10 µs for the same level run next.
 */
export async function ussdHops(
  env: BenchEnv,
  workerPid: number,
  levels: number[],
  between: () => Promise<void> = () => Promise.resolve(),
): Promise<UssdLevel[]> {
  const gateway = await startGateway(env, { USSD_RATE_PER_MINUTE: '10000' }, nodeArgs(process.env.BENCH_GATEWAY_ARGS));
  const { hostname, port } = new URL(gateway.base);
  // Session ids new to this call: a probe calls again on the same schema, round after round.
  const run = Date.now().toString(36);
  let pass = 0;
  /** A closed loop of `concurrency` sessions for `seconds` (after 1 s of warm-up). */
  const level = async (concurrency: number, seconds: number): Promise<UssdLevel> => {
    pass++;
    // Where a hop's CPU goes: every process on the two cores, over the counted seconds only.
    const meter = cpuMeter({
      gateway: { pid: gateway.pid },
      worker: { pid: workerPid },
      postgres: { command: 'postgres' },
      redis: { command: 'redis-server' },
      loadGenerator: { pid: process.pid },
    });
    const connections = Array.from({ length: concurrency }, () => new RawHttpConnection(hostname, Number(port)));
    const sessions = Array.from({ length: concurrency }, (_, w) => ({
      id: `bench-${run}-${pass}-${w}-0`,
      hop: 0,
      n: 0,
    }));
    const hop = async (w: number): Promise<void> => {
      const s = sessions[w]!;
      if (s.hop === HOPS.length) {
        s.n++;
        s.id = `bench-${run}-${pass}-${w}-${s.n}`;
        s.hop = 0;
      }
      const body = JSON.stringify({
        sessionId: s.id,
        phoneNumber: `+26097${String(w % 1000).padStart(7, '0')}`,
        serviceCode: '*1234#',
        text: HOPS[s.hop++],
      });
      const res = await connections[w]!.request('POST', '/api/ussd', body);
      if (res.status !== 200 || !res.body.startsWith('CON ')) throw new Error(`${res.status} ${res.body}`);
    };
    try {
      const result = await closedLoop(concurrency, seconds * 1000, (w) => hop(w), 1_000, meter);
      const cpu = meter.spent();
      const perHop = (ms: number): number => (ms * 1000) / result.ops;
      return {
        ...result,
        cpuPerHopUs: {
          gateway: perHop(cpu.gateway),
          worker: perHop(cpu.worker),
          postgres: perHop(cpu.postgres),
          redis: perHop(cpu.redis),
          loadGenerator: perHop(cpu.loadGenerator),
        },
      };
    } finally {
      for (const c of connections) c.close();
    }
  };
  try {
    const results: UssdLevel[] = [];
    if (levels.length > 0) await level(levels[0]!, WARM_UP_SECONDS);
    for (const concurrency of levels) {
      await between();
      results.push(await level(concurrency, env.seconds));
    }
    return results;
  } finally {
    await gateway.stop();
  }
}
