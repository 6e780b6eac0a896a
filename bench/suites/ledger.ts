import postgres from 'postgres';
import { createLogger } from '../../src/log.js';
import { appendBlock } from '../../src/ledger/journal.js';
import { createSql, type Sql } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import type { BenchEnv } from '../lib/env.js';

export interface LedgerLevel {
  batch: number;
  entries: number;
  seconds: number;
  perSecond: number;
  /** Bare PostgreSQL: the same rows inserted, one transaction per batch. */
  barePerSecond: number;
}

/** The journal's own schema: the worker of the other suites chains its entries, not this one's. */
const ledgerSchema = (env: BenchEnv): string => `${env.schema}_ledger`;

const payload = { type: 'voucher.redeemed', id: 'rdm_0123456789abcdef', voucherId: 'vch_0123456789abcdef', amount: 1 };

async function enqueue(sql: Sql, level: number, n: number): Promise<void> {
  for (let done = 0; done < n; done += 10_000) {
    await sql`
      INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
      SELECT 'voucher', 'v-' || (i % 1000), i || '-' || ${level}::int, 0, ${sql.json(payload)}
      FROM generate_series(${done}::int, ${Math.min(n, done + 10_000) - 1}::int) AS i`;
  }
}

/** Entries written and not chained yet. */
async function waiting(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM ledger_entries e, ledger_head h
    WHERE h.id = 1 AND e.txid IS NOT NULL AND (e.txid, e.entry_id) > (h.cursor_txid, h.cursor_entry)`;
  return row?.n ?? 0;
}

/** Runs `step` (which handles `batch` rows) until `seconds` pass or `total` rows are done. */
async function timed(
  total: number,
  batch: number,
  seconds: number,
  step: () => Promise<number>,
): Promise<[number, number]> {
  const started = performance.now();
  let done = 0;
  while (done < total && performance.now() - started < seconds * 1000) {
    const n = await step();
    if (n === 0) break;
    done += n;
  }
  return [done, (performance.now() - started) / 1000];
}

/**
 * Ledger entries/s through the journal (appendBlock: read the entries not chained yet, hash them
 * and the Merkle tree, write the block row and move the head in one transaction) at
 * each block size, against bare PostgreSQL inserting the same number of rows per transaction.
 */
export async function ledgerJournal(env: BenchEnv, batches: number[]): Promise<LedgerLevel[]> {
  const schema = ledgerSchema(env);
  const sql = createSql({ url: env.databaseUrl, schema, max: 2 });
  const admin = postgres(env.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    await migrate(sql, schema, createLogger('error', 'bench'));
    await sql`CREATE TABLE bare_rows (id bigserial PRIMARY KEY, body text NOT NULL)`;
    const body = JSON.stringify(payload);
    const out: LedgerLevel[] = [];
    for (const batch of batches) {
      const total = Math.max(2_000, Math.min(200_000, batch * 400));
      await enqueue(sql, batch, total);
      const now = new Date();
      const [entries, seconds] = await timed(total, batch, env.seconds, async () => {
        // Nothing to chain can mean a transaction still open elsewhere on the server (the writer
        // takes only older ones): wait for it rather than end the level early.
        for (;;) {
          const b = await appendBlock(sql, { maxEntries: batch, now, anchor: false });
          if (b) return b.entryCount;
          if ((await waiting(sql)) === 0) return 0;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      });
      // Whatever this level left unchained goes, so the next level starts from its own entries.
      await sql`DELETE FROM ledger_entries e USING ledger_head h
                WHERE h.id = 1 AND e.txid IS NOT NULL AND (e.txid, e.entry_id) > (h.cursor_txid, h.cursor_entry)`;
      const rows = Array.from({ length: batch }, () => body);
      const [bare, bareSeconds] = await timed(total, batch, env.seconds, async () => {
        await sql.begin((tx) => tx`INSERT INTO bare_rows (body) SELECT unnest(${tx.array(rows)}::text[])`);
        return batch;
      });
      out.push({ batch, entries, seconds, perSecond: entries / seconds, barePerSecond: bare / bareSeconds });
    }
    return out;
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
