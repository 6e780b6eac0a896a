import { readFileSync } from 'node:fs';
/** What one load level measured. */
export interface LevelResult {
  concurrency: number;
  ops: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] ?? Number.NaN;
}

/**
 * Runs `op` from `concurrency` loops for `durationMs` (after `warmupMs` not counted), each loop
 * starting its next op when the previous one ends (a closed system, like real askers). `window`
 * is told when the counted time starts and ends (to measure something else over it).
 */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  op: (worker: number, i: number) => Promise<unknown>,
  warmupMs = 1_000,
  window?: { start(): void; stop(): void },
): Promise<LevelResult> {
  const latencies: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loops = Array.from({ length: concurrency }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const t0 = performance.now();
      try {
        await op(w, i);
        if (measuring) latencies.push(performance.now() - t0);
      } catch {
        if (measuring) errors++;
      }
    }
  });
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  window?.start();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  window?.stop();
  const seconds = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(loops);
  const sorted = Float64Array.from(latencies).sort();
  return {
    concurrency,
    ops: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors,
  };
}

/** The p-th percentile of unsorted samples. */
export const percentileOf = (xs: readonly number[], p: number): number => percentile(Float64Array.from(xs).sort(), p);

/** Resident memory of a process, KiB (Linux). */
export const rssKb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

export const fmt = {
  rate: (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a'),
  ms: (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : 'n/a'),
  ratio: (a: number, b: number): string => (b > 0 && Number.isFinite(a) ? `${((a / b) * 100).toFixed(1)}%` : 'n/a'),
};

/** Level by level, the run with the higher rate. */
export function better(a: LevelResult[], b: LevelResult[]): LevelResult[] {
  return a.map((x, i) => {
    const y = b[i];
    return y && y.perSecond > x.perSecond ? y : x;
  });
}
