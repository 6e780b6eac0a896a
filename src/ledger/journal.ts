import type { TransactionSql } from 'postgres';
import type { Sql } from '../store/db.js';
import { blockHash } from './block.js';
import { chainedEntry, type ChainPosition, type EntryRow } from './block-entries.js';
import { NEXT_TO_CHAIN, planned } from './chain-statements.js';
import { merkleRoot } from './merkle.js';

export interface WrittenBlock {
  height: number;
  hash: string;
  merkleRoot: string;
  entryCount: number;
  createdAt: string;
}

/**
 * Writes the next block of the journal from up to `maxEntries` entries not chained yet, in one
 * transaction: the block row names their range, and the head moves to it. Nothing is written per
 * entry: each was written once, by the commit of what it records (migration 026). Only entries of
 * transactions older than every one still running are taken (`pg_snapshot_xmin`): an entry of a
 * transaction still running has a smaller id than some already committed, and would otherwise be
 * passed over for good. The head row's lock serializes writers (two worker processes never fork
 * the chain), and a crash anywhere before COMMIT leaves nothing behind. Returns undefined when
 * there was nothing to write.
 */
export async function appendBlock(
  sql: Sql,
  opts: { maxEntries: number; now: Date; anchor: boolean },
): Promise<WrittenBlock | undefined> {
  return sql.begin(async (tx) => {
    const [head] = await tx<{ height: string; hash: string; cursor_txid: string; cursor_entry: string }[]>`
      SELECT height, hash, cursor_txid, cursor_entry FROM ledger_head WHERE id = 1 FOR UPDATE`;
    if (!head) throw new Error('ledger_head row is missing: run the migrations');
    const after: ChainPosition = { txid: String(head.cursor_txid), entry: String(head.cursor_entry) };
    const rows = await planned<EntryRow>(tx, NEXT_TO_CHAIN, [after.txid, after.entry, opts.maxEntries]);
    if (rows.length === 0) {
      await refuseIfBehind(tx, after);
      return undefined;
    }
    const lastRow = rows[rows.length - 1]!;
    const last: ChainPosition = { txid: String(lastRow.txid), entry: String(lastRow.entry_id) };

    const leaves = rows.map((r, i) => chainedEntry(r, i).leafHash);
    const createdAt = opts.now.toISOString();
    const header = {
      height: Number(head.height) + 1,
      prevHash: head.hash,
      merkleRoot: merkleRoot(leaves),
      entryCount: rows.length,
      createdAt,
    };
    const hash = blockHash(header);
    await tx`
      INSERT INTO ledger_blocks (height, prev_hash, merkle_root, hash, entry_count, created_at, anchor_status,
                                 after_txid, after_entry, last_txid, last_entry)
      VALUES (${header.height}, ${header.prevHash}, ${header.merkleRoot}, ${hash}, ${header.entryCount},
              ${createdAt}, ${opts.anchor ? 'pending' : 'none'},
              ${after.txid}::xid8, ${after.entry}, ${last.txid}::xid8, ${last.entry})`;
    await tx`
      UPDATE ledger_head SET height = ${header.height}, hash = ${hash},
                             cursor_txid = ${last.txid}::xid8, cursor_entry = ${last.entry}
      WHERE id = 1`;
    return { height: header.height, hash, merkleRoot: header.merkleRoot, entryCount: header.entryCount, createdAt };
  });
}

/**
 * On one server the oldest running transaction is always past the cursor. Behind it, the server
 * counts transaction ids anew (a dump restored into another cluster): entries written now sort
 * before the cursor and would never be chained. Stop, and say so in /health. Asked in a statement
 * of its own, after the head's lock: a statement that waited for the lock sees the head another
 * writer just moved, with a snapshot taken before that writer's commit (its xmin then trails the
 * new cursor; CI's racing writers saw this once the check shared the locking statement).
 */
async function refuseIfBehind(tx: TransactionSql, cursor: ChainPosition): Promise<void> {
  const [row] = await tx<{ behind: boolean }[]>`
    SELECT pg_snapshot_xmin(pg_current_snapshot()) <= ${cursor.txid}::xid8 AS behind`;
  if (row?.behind) {
    throw new Error(
      "the server's transaction ids are behind the ledger's cursor (a restore into another cluster?): " +
        'no block is written until they pass it (docs/ledger.md, "The chain\'s order")',
    );
  }
}
