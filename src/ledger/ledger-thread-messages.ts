import type { Config } from '../config.js';

/** What the ledger thread starts from (cloned into it: plain data only). */
export interface LedgerThreadData {
  config: Config;
  ownerId: string;
  /** The parent logger's level, so the thread logs what its process logs. */
  logLevel: string;
}

/** Parent → thread. */
export type ToLedgerThread = { kind: 'close' };

/** Thread → parent. */
export type FromLedgerThread = { kind: 'ready' } | { kind: 'failed'; message: string } | { kind: 'closed' };
