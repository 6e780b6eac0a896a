import type { TransactionSql } from 'postgres';
import type { Sql } from '../store/db.js';

/**
 * The statements that range over the chain's order of `ledger_entries` (block-entries.ts), a
 * table that grows with every operation: each must reach its rows through an index however large
 * it gets (test/integration/ledger/ledger-plans.test.ts EXPLAINs each on a large table).
 */

/** The columns an entry row is read from (block-entries.ts `EntryRow`). */
const ENTRY_COLUMNS = 'entry_id, txid, actor_type, actor_key, msg_id, seq, payload, created_at';

/** The next entries to chain: past the cursor ($1, $2), of transactions no longer running, $3 at most. */
export const NEXT_TO_CHAIN = `SELECT ${ENTRY_COLUMNS} FROM ledger_entries
  WHERE txid IS NOT NULL AND (txid, entry_id) > ($1::xid8, $2::bigint)
    AND txid < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY txid, entry_id LIMIT $3`;

/** A block's entries: after ($1, $2), up to and including ($3, $4). */
export const ENTRIES_IN_RANGE = `SELECT ${ENTRY_COLUMNS} FROM ledger_entries
  WHERE txid IS NOT NULL AND (txid, entry_id) > ($1::xid8, $2::bigint) AND (txid, entry_id) <= ($3::xid8, $4::bigint)
  ORDER BY txid, entry_id`;

/** The entries waiting for their block: past the cursor ($1, $2). */
export const BACKLOG = `SELECT count(*) AS queued, min(created_at) AS oldest FROM ledger_entries
  WHERE txid IS NOT NULL AND (txid, entry_id) > ($1::xid8, $2::bigint)`;

/** The block whose range holds the entry ($1 its txid, $2 its id): the first that ends at or after it. */
export const BLOCK_OF_ENTRY = (columns: string): string => `SELECT ${columns} FROM ledger_blocks
  WHERE last_txid IS NOT NULL AND (last_txid, last_entry) >= ($1::xid8, $2::bigint)
  ORDER BY last_txid, last_entry LIMIT 1`;

/**
 * A statement over ledger_entries by a range of the chain's order, planned with its values: the
 * table grows without end, and hearth's connections force generic plans, which guess a third of
 * the table for a row comparison with a parameter (measured: /health's backlog count on 600,000
 * entries ran as a parallel sequential scan, 280 ms, and a plan prepared on an empty table
 * scanned and sorted all of it for the connection's life). An unnamed statement with parameters
 * gets the generic plan too, so the values go into the text: each is a decimal integer (a txid,
 * an entry id, a limit), checked here, so nothing else can.
 */
export function planned<T extends object>(
  sql: Sql | TransactionSql,
  text: string,
  params: ReadonlyArray<string | number>,
): Promise<T[]> {
  const literal = params.map((p) => {
    const digits = String(p);
    if (!/^[0-9]{1,20}$/.test(digits)) throw new Error(`not a decimal integer: ${digits.slice(0, 24)}`);
    return digits;
  });
  const statement = text.replace(/\$([0-9]+)/g, (_, n: string) => `'${literal[Number(n) - 1]!}'`);
  return sql.unsafe<T[]>(statement, [], { prepare: false });
}
