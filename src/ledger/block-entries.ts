import type { TransactionSql } from 'postgres';
import type { Sql } from '../store/db.js';
import { entryBody } from './block.js';
import { ENTRIES_IN_RANGE, planned } from './chain-statements.js';
import { leafHash } from './merkle.js';

/**
 * A block's entries as hashed, of either kind (migration 026): entries chained before it carry
 * their height, index, leaf and body; entries written once carry what they record, and a block
 * of them names its range of (txid, entry_id), its entries being every row in that range in that
 * order. Their body is computed here from the row: the bytes the old writer stored.
 */
export interface ChainedEntry {
  entryId: string;
  /** Its position in its block (stored for the first kind, its place in the range otherwise). */
  index: number;
  /** The canonical JSON that is hashed. */
  body: string;
  /** Stored for the first kind (verify checks it against the body); computed otherwise. */
  leafHash: string;
}

/** A point in the chain's order of written-once entries: the writing transaction, then the id. */
export interface ChainPosition {
  txid: string;
  entry: string;
}

/** The start of that order (ledger_head's cursor before the first block of the new kind). */
export const CHAIN_START: ChainPosition = { txid: '0', entry: '0' };

/** How a block's entries are found: by its height, or (written-once entries) by its range. */
export interface BlockLocation {
  height: number;
  range: { after: ChainPosition; last: ChainPosition } | null;
}

export interface EntryRow {
  entry_id: string;
  txid: string;
  actor_type: string;
  actor_key: string;
  msg_id: string;
  seq: number;
  payload: unknown;
  created_at: Date;
}

/** A written-once entry as hashed, at `index` in its block. */
export function chainedEntry(r: EntryRow, index: number): ChainedEntry {
  const body = entryBody({
    id: String(r.entry_id),
    actorType: r.actor_type,
    actorKey: r.actor_key,
    msgId: r.msg_id,
    seq: r.seq,
    payload: r.payload,
    createdAt: r.created_at.toISOString(),
  });
  return { entryId: String(r.entry_id), index, body, leafHash: leafHash(body) };
}

/** The range columns of a block row (NULL for a block of the first kind). */
export interface RangeColumns {
  after_txid: string | null;
  after_entry: string | null;
  last_txid: string | null;
  last_entry: string | null;
}

export function rangeOf(r: RangeColumns): BlockLocation['range'] {
  if (r.after_txid === null || r.after_entry === null || r.last_txid === null || r.last_entry === null) return null;
  return {
    after: { txid: String(r.after_txid), entry: String(r.after_entry) },
    last: { txid: String(r.last_txid), entry: String(r.last_entry) },
  };
}

/** Written-once entries after `after` up to and including `last`, in the chain's order. */
export async function entriesInRange(
  sql: Sql | TransactionSql,
  after: ChainPosition,
  last: ChainPosition,
): Promise<EntryRow[]> {
  return planned<EntryRow>(sql, ENTRIES_IN_RANGE, [after.txid, after.entry, last.txid, last.entry]);
}

/** A block's entries in order, of either kind. */
export async function blockEntries(sql: Sql | TransactionSql, block: BlockLocation): Promise<ChainedEntry[]> {
  if (block.range) {
    const rows = await entriesInRange(sql, block.range.after, block.range.last);
    return rows.map(chainedEntry);
  }
  const rows = await sql<{ entry_id: string; idx: number; leaf_hash: string; body: string }[]>`
    SELECT entry_id, idx, leaf_hash, body FROM ledger_entries WHERE height = ${block.height} ORDER BY idx`;
  return rows.map((r) => ({ entryId: String(r.entry_id), index: r.idx, body: r.body, leafHash: r.leaf_hash }));
}

/** Whether `p` comes after `q` in the chain's order. */
export function isAfter(p: ChainPosition, q: ChainPosition): boolean {
  const [pt, qt] = [BigInt(p.txid), BigInt(q.txid)];
  return pt !== qt ? pt > qt : BigInt(p.entry) > BigInt(q.entry);
}
