import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface Child {
  proc: ChildProcess;
  /** The first stdout line matching `ready`, parsed as JSON. */
  ready: Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Node options for a server process, from a space-separated variable (profiling: docs/operations.md). */
export function nodeArgs(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter(Boolean);
}

/** Starts a Node script in its own process (the server side of a benchmark). */
export function startChild(
  script: string,
  env: Record<string, string>,
  ready: (line: Record<string, unknown>) => boolean,
  nodeArgs: string[] = [],
): Child {
  const proc = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const readyLine = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: proc.stdout }).on('line', (text) => {
      try {
        const line = JSON.parse(text) as Record<string, unknown>;
        if (ready(line)) resolve(line);
      } catch {
        // not a JSON line
      }
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    proc,
    ready: readyLine,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), 15_000).unref();
      }),
  };
}
