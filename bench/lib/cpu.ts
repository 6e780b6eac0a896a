import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ, 100 on every mainstream build). */
const TICK_MS = 10;

/** CPU time (user + system) a process has used so far, ms; NaN when it cannot be read. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces or parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

function commandOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Who is measured: processes by pid, or every process of a command name (PostgreSQL's backends). */
export type CpuSubject = { pid: number } | { command: string };

function cpuMsOfSubject(subject: CpuSubject): number {
  if ('pid' in subject) return cpuMsOf(subject.pid);
  const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && commandOf(p) === subject.command);
  // A server in a container on another kernel (Docker Desktop) is not visible here.
  if (pids.length === 0) return Number.NaN;
  return pids.reduce((sum, p) => sum + (cpuMsOf(Number(p)) || 0), 0);
}

/**
 * CPU used by each subject between `start()` and `stop()`, ms. Processes that start or end in
 * between are not counted (PostgreSQL's backends live as long as their connections).
 */
export function cpuMeter<K extends string>(subjects: Record<K, CpuSubject>) {
  const keys = Object.keys(subjects) as K[];
  const read = (): Record<K, number> =>
    Object.fromEntries(keys.map((k) => [k, cpuMsOfSubject(subjects[k])])) as Record<K, number>;
  let before = read();
  let spent = Object.fromEntries(keys.map((k) => [k, Number.NaN])) as Record<K, number>;
  return {
    start(): void {
      before = read();
    },
    stop(): void {
      const after = read();
      spent = Object.fromEntries(keys.map((k) => [k, after[k] - before[k]])) as Record<K, number>;
    },
    /** CPU ms per subject between the last start() and stop(). */
    spent: (): Record<K, number> => spent,
  };
}
