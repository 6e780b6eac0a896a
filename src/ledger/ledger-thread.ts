/*
 * The ledger writer's thread (started by ledger-on-thread.ts, never imported): its own logger and
 * its own PostgreSQL pool, the writer itself as in a worker process. It tells its parent `ready`
 * once started (or `failed` with the reason), and closes when told `close`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { createLogger } from '../log.js';
import { createSql } from '../store/db.js';
import { startLedger } from './start-ledger.js';
import type { FromLedgerThread, LedgerThreadData, ToLedgerThread } from './ledger-thread-messages.js';

async function main(port: NonNullable<typeof parentPort>, data: LedgerThreadData): Promise<void> {
  const config: Config = data.config;
  const tell = (m: FromLedgerThread): void => port.postMessage(m);
  const log = createLogger(data.logLevel, 'hearth', config.LOG_FORMAT).child({
    role: 'worker',
    actor: 'ledger',
    thread: 'ledger',
  });
  // Two connections: the drain and the heartbeat (and, on cosmos, the anchoring) take turns.
  const sql = createSql({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, max: 3 });
  let ledger: { close(): Promise<void> };
  try {
    ledger = await startLedger(config, { sql, log, ownerId: data.ownerId, clock: () => new Date() });
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    tell({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  port.on('message', (m: ToLedgerThread) => {
    if (m.kind !== 'close') return;
    void ledger
      .close()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'ledger close failed'))
      .then(() => sql.end({ timeout: 5 }))
      .finally(() => {
        tell({ kind: 'closed' });
        port.close();
      });
  });
  tell({ kind: 'ready' });
}

if (parentPort) await main(parentPort, workerData as LedgerThreadData);
