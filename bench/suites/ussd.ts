import { nodeArgs } from '../lib/child.js';
import type { BenchEnv } from '../lib/env.js';
import { startGateway } from '../lib/gateway.js';
import { cpuMeter } from '../lib/cpu.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';
import { RawHttpConnection } from '../lib/raw-http.js';

/** The five hops of the measured session: menu, a choice, the next screen, back, home. */
const HOPS = ['', '1', '1*1', '1*1*0', '1*1*0*00'];

/**
 * USSD hops through a gateway process in front of the worker: each concurrent session walks
 * five hops (every hop a POST /api/ussd with the cumulative text, an ask to the session actor,
 * its write-behind snapshot), then starts over as a new session. Phones come from a pool of
 * 1,000 unregistered numbers, so the phone look-up is as warm as in steady traffic.
 */
/** A level's result, with the CPU each process spent per hop, µs (NaN: not measurable here). */
export interface UssdLevel extends LevelResult {
  cpuPerHopUs: Record<'gateway' | 'worker' | 'postgres' | 'redis' | 'loadGenerator', number>;
}

export async function ussdHops(
  env: BenchEnv,
  workerPid: number,
  levels: number[],
  /** Runs before every level but the first (the run vacuums there: autovacuum is off here). */
  between: () => Promise<void> = () => Promise.resolve(),
): Promise<UssdLevel[]> {
  const gateway = await startGateway(env, { USSD_RATE_PER_MINUTE: '10000' }, nodeArgs(process.env.BENCH_GATEWAY_ARGS));
  const { hostname, port } = new URL(gateway.base);
  try {
    const results: UssdLevel[] = [];
    for (const [i, concurrency] of levels.entries()) {
      // Each level leaves thousands of new sessions' snapshots behind, and their dead row versions.
      if (i > 0) await between();
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
        id: `bench-${concurrency}-${w}-0`,
        hop: 0,
        n: 0,
      }));
      const hop = async (w: number): Promise<void> => {
        const s = sessions[w]!;
        if (s.hop === HOPS.length) {
          s.n++;
          s.id = `bench-${concurrency}-${w}-${s.n}`;
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
      // The first level also warms the new gateway's code and the worker's USSD paths (a cold
      // first level measured 10-20% fewer hops/s than the same level run again).
      const warmupMs = i === 0 ? 3_000 : 1_000;
      const level = await closedLoop(concurrency, env.seconds * 1000, (w) => hop(w), warmupMs, meter);
      const cpu = meter.spent();
      const perHop = (ms: number): number => (ms * 1000) / level.ops;
      results.push({
        ...level,
        cpuPerHopUs: {
          gateway: perHop(cpu.gateway),
          worker: perHop(cpu.worker),
          postgres: perHop(cpu.postgres),
          redis: perHop(cpu.redis),
          loadGenerator: perHop(cpu.loadGenerator),
        },
      });
      for (const c of connections) c.close();
    }
    return results;
  } finally {
    await gateway.stop();
  }
}
