import type { Sql } from '../store/db.js';
import type { BlockAnchor, SignedAnchor } from './anchor-port.js';
import { blockEntries, rangeOf, type RangeColumns } from './block-entries.js';
import { publicReason } from './public-reason.js';

interface PendingRow extends RangeColumns {
  height: string;
  merkle_root: string;
  tx_bytes: Buffer | null;
  tx_hash: string | null;
  tx_sequence: string | null;
}

/**
 * Anchors the journal's pending blocks on chain, oldest first, one transaction each. The signed
 * bytes are saved on the block row (compare-and-set on the previous hash) before any broadcast,
 * so whoever retries — this process after a crash, or another worker — re-broadcasts the same
 * transaction. Returns how many blocks were anchored; throws at the first block that fails,
 * after recording why on it.
 */
export async function anchorPending(
  sql: Sql,
  chain: BlockAnchor,
  now: () => Date,
  /** Checked before each block: false once this process no longer holds the ledger lease. */
  mayContinue: () => boolean = () => true,
  max = 10,
): Promise<number> {
  const pending = await sql<PendingRow[]>`
    SELECT height, merkle_root, tx_bytes, tx_hash, tx_sequence, after_txid, after_entry, last_txid, last_entry
    FROM ledger_blocks
    WHERE anchor_status = 'pending' ORDER BY height LIMIT ${max}`;
  let anchored = 0;
  for (const b of pending) {
    if (!mayContinue()) break;
    const height = Number(b.height);
    const leaves = await blockEntries(sql, { height, range: rangeOf(b) });
    const stored: SignedAnchor | undefined =
      b.tx_bytes && b.tx_hash
        ? { txBytes: new Uint8Array(b.tx_bytes), txHash: b.tx_hash, sequence: Number(b.tx_sequence) }
        : undefined;
    let current = b.tx_hash;
    try {
      const result = await chain.anchor(
        { height, merkleRoot: b.merkle_root, entries: leaves.map((l) => ({ leafHash: l.leafHash })) },
        stored,
        async (signed) => {
          const saved = await sql`
            UPDATE ledger_blocks SET tx_bytes = ${Buffer.from(signed.txBytes)}, tx_hash = ${signed.txHash},
                   tx_sequence = ${signed.sequence}
            WHERE height = ${height} AND anchor_status = 'pending' AND tx_hash IS NOT DISTINCT FROM ${current}`;
          if (saved.count !== 1) throw new Error(`block ${height}: its transaction was replaced by another writer`);
          current = signed.txHash;
        },
      );
      await sql`
        UPDATE ledger_blocks SET anchor_status = 'anchored', tx_hash = ${result.txHash},
               chain_height = ${result.chainHeight}, anchored_at = ${now().toISOString()}, anchor_error = NULL
        WHERE height = ${height} AND anchor_status = 'pending'`;
      anchored++;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await sql`
        UPDATE ledger_blocks SET anchor_error = ${publicReason(reason)} WHERE height = ${height} AND anchor_status = 'pending'`;
      throw err;
    }
  }
  return anchored;
}
