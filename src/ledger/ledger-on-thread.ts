import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { Backoff, sleep } from '../actors/runtime/backoff.js';
import type { FromLedgerThread, LedgerThreadData, ToLedgerThread } from './ledger-thread-messages.js';

/** How long close() waits for the thread to give its lease up and end (its writer waits 2 s at most, its pool 5 s). */
const CLOSE_WAIT_MS = 10_000;

/**
 * Where the thread's code is: beside this file, compiled. Run from the sources (vitest, or a test's
 * child process under tsx), the thread loads tsx itself first: a thread has a module loader of its
 * own, and Node's loader alone cannot read TypeScript.
 */
function threadEntry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./ledger-thread.js', import.meta.url);
  const source = new URL('./ledger-thread.ts', import.meta.url).href;
  // tsx's ESM API, found from this file (the project's node_modules) by its package's exports.
  const require = createRequire(import.meta.url);
  const tsx = require('tsx/package.json') as { exports: Record<string, { import?: { default?: string } }> };
  const api = new URL(
    tsx.exports['./esm/api']?.import?.default ?? '',
    pathToFileURL(require.resolve('tsx/package.json')),
  );
  const boot = `const { register } = await import(${JSON.stringify(api.href)}); register(); await import(${JSON.stringify(source)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`);
}

/**
 * Runs the ledger writer (start-ledger.ts) on a thread of its own. Chaining a block hashes every
 * entry in it (its canonical JSON, its leaf, the Merkle tree): on the worker's own thread that was
 * a quarter of its CPU under redemptions, and every round of every actor type waited behind it.
 * The thread has its own PostgreSQL pool; the writer's lease (ledger_head) still makes it the one
 * writer of the deployment. A thread that dies is started again (same owner id, so it takes its
 * own lease back at once) after a back-off. Resolves once the writer runs; rejects as starting it
 * in-process would (an invalid cosmos mnemonic, say).
 */
export async function startLedgerOnThread(
  config: Config,
  deps: {
    log: Logger;
    ownerId: string;
    /** Told of each thread as it starts (the first, and each one started again after a death). */
    onThread?: (thread: Worker) => void;
  },
): Promise<{ close(): Promise<void> }> {
  const data: LedgerThreadData = { config, ownerId: deps.ownerId, logLevel: deps.log.level };
  const entry = threadEntry();
  const backoff = new Backoff(1_000, 30_000);
  let closing = false;
  /** The thread now running, with its end (undefined between a death and the next start). */
  let current: { worker: Worker; exited: Promise<void> } | undefined;

  const spawn = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(entry, { workerData: data });
      deps.onThread?.(worker);
      const exited = new Promise<void>((done) => worker.once('exit', () => done()));
      current = { worker, exited };
      let started = false;
      worker.on('message', (m: FromLedgerThread) => {
        if (m.kind === 'ready') {
          started = true;
          backoff.reset();
          resolve();
        } else if (m.kind === 'failed') reject(new Error(m.message));
      });
      worker.on('error', (err) => {
        deps.log.error({ err: err.message }, 'ledger thread failed');
        if (!started) reject(err);
      });
      worker.on('exit', (code) => {
        if (current?.worker === worker) current = undefined;
        if (!started) reject(new Error(`ledger thread exited with code ${code} before it started`));
        if (closing || !started) return;
        const delay = backoff.next();
        deps.log.warn({ code, retryInMs: delay }, 'ledger thread ended; starting it again');
        void sleep(delay).then(() => (closing ? undefined : spawn().catch(restartFailed)));
      });
    });
  const restartFailed = (err: unknown): void => {
    deps.log.error({ err: err instanceof Error ? err.message : String(err) }, 'ledger thread did not start again');
    if (closing) return;
    void sleep(backoff.next()).then(() => (closing ? undefined : spawn().catch(restartFailed)));
  };

  await spawn();
  return {
    async close() {
      closing = true;
      const running = current;
      if (!running) return;
      running.worker.postMessage({ kind: 'close' } satisfies ToLedgerThread);
      const timer = setTimeout(() => void running.worker.terminate(), CLOSE_WAIT_MS);
      await running.exited;
      clearTimeout(timer);
    },
  };
}
