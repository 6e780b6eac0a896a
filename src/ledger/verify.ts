import type { TransactionSql } from 'postgres';
import type { Sql } from '../store/db.js';
import { blockHash, GENESIS_HASH } from './block.js';
import { leafHash, merkleRoot } from './merkle.js';
import { MovementCheck, type AssetTotals } from './movement-check.js';
import {
  CHAIN_START,
  chainedEntry,
  entriesInRange,
  isAfter,
  rangeOf,
  type ChainedEntry,
  type RangeColumns,
} from './block-entries.js';

export interface VerifyResult {
  ok: boolean;
  blocks: number;
  entries: number;
  /** The last block that checks out (`height:hash`): record it, and pass it later as a checkpoint. */
  head?: string;
  /** The first block that does not check out, and why. */
  bad?: { height: number; reason: string };
  /** Per asset, from the entries' movements: minted, burned, and held by every other account. */
  assets?: AssetTotals;
}

interface BlockRow extends RangeColumns {
  height: string;
  prev_hash: string;
  merkle_root: string;
  hash: string;
  entry_count: number;
  created_at: Date;
}

const PAGE = 50;

/**
 * The entries of a page of blocks, by height, in two reads: those stored with their block's
 * height, and the written-once entries of the page's ranges (one range from the first to the last).
 */
async function pageEntries(
  sql: Sql | TransactionSql,
  blocks: readonly BlockRow[],
): Promise<Map<number, ChainedEntry[]>> {
  const byHeight = new Map<number, ChainedEntry[]>();
  const first = Number(blocks[0]!.height);
  const last = Number(blocks[blocks.length - 1]!.height);
  const stored = await sql<{ entry_id: string; height: string; idx: number; leaf_hash: string; body: string }[]>`
    SELECT entry_id, height, idx, leaf_hash, body FROM ledger_entries
    WHERE height BETWEEN ${first} AND ${last} ORDER BY height, idx`;
  for (const r of stored) {
    const list = byHeight.get(Number(r.height)) ?? [];
    list.push({ entryId: String(r.entry_id), index: r.idx, body: r.body, leafHash: r.leaf_hash });
    byHeight.set(Number(r.height), list);
  }
  const ranged = blocks.flatMap((b) => {
    const range = rangeOf(b);
    return range ? [{ height: Number(b.height), range }] : [];
  });
  if (ranged.length === 0) return byHeight;
  const rows = await entriesInRange(sql, ranged[0]!.range.after, ranged[ranged.length - 1]!.range.last);
  let at = 0;
  for (const { height, range } of ranged) {
    const list: ChainedEntry[] = [];
    while (
      at < rows.length &&
      !isAfter({ txid: String(rows[at]!.txid), entry: String(rows[at]!.entry_id) }, range.last)
    ) {
      list.push(chainedEntry(rows[at]!, list.length));
      at++;
    }
    byHeight.set(height, list);
  }
  return byHeight;
}

/** A block hash recorded outside the database earlier (printed by a previous verify). */
export interface Checkpoint {
  height: number;
  hash: string;
}

/** `height:hash` as printed by ledger:verify. */
export function parseCheckpoint(text: string): Checkpoint {
  const m = /^([1-9][0-9]*):([0-9a-f]{64})$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a checkpoint: expected <height>:<64 hex digits>`);
  return { height: Number(m[1]), hash: m[2]! };
}

/**
 * Recomputes the whole chain from its stored rows, in one read-only snapshot: every entry's leaf
 * from its body, every block's Merkle root, hash and link to its predecessor, the heights without
 * a gap, the head, and each checkpoint. Stops at the first block that does not check out.
 *
 * A hash chain alone cannot tell a consistently rewritten tail (or a truncated one with the head
 * moved back) from the real one: that is what checkpoints, recorded outside the database, and the
 * cosmos backend's on-chain anchors are for.
 */
export async function verifyJournal(
  sql: Sql,
  opts: { progress?: (blocks: number) => void; checkpoints?: readonly Checkpoint[] } = {},
): Promise<VerifyResult> {
  const result = await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => verifyIn(tx, opts));
  return result;
}

async function verifyIn(
  sql: Sql | TransactionSql,
  opts: { progress?: (blocks: number) => void; checkpoints?: readonly Checkpoint[] },
): Promise<VerifyResult> {
  const checkpoints = new Map((opts.checkpoints ?? []).map((c) => [c.height, c.hash]));
  let prevHash = GENESIS_HASH;
  let expected = 1;
  let entries = 0;
  const money = new MovementCheck();
  const bad = (height: number, reason: string): VerifyResult => ({
    ok: false,
    blocks: expected - 1,
    entries,
    bad: { height, reason },
    assets: money.totals(),
  });
  // Where the chain stands among written-once entries: each block of them starts where the last ended.
  let chainAt = CHAIN_START;
  for (;;) {
    const blocks = await sql<BlockRow[]>`
      SELECT height, prev_hash, merkle_root, hash, entry_count, created_at, after_txid, after_entry, last_txid, last_entry
      FROM ledger_blocks WHERE height >= ${expected} ORDER BY height LIMIT ${PAGE}`;
    if (blocks.length === 0) break;
    const byHeight = await pageEntries(sql, blocks);
    for (const b of blocks) {
      const height = Number(b.height);
      if (height !== expected) return bad(expected, `block ${expected} is missing`);
      const range = rangeOf(b);
      if (range && (range.after.txid !== chainAt.txid || range.after.entry !== chainAt.entry))
        return bad(height, 'its range does not start where the previous block of written entries ended');
      const list = byHeight.get(height) ?? [];
      const why = checkBlock(b, list, prevHash);
      if (why) return bad(height, why);
      for (const e of list) {
        const broken = money.apply(e.body);
        if (broken) return bad(height, `entry ${e.entryId}: ${broken}`);
      }
      const recorded = checkpoints.get(height);
      if (recorded !== undefined && recorded !== b.hash)
        return bad(height, `hash differs from the checkpoint ${height}:${recorded}`);
      prevHash = b.hash;
      if (range) chainAt = range.last;
      entries += list.length;
      expected++;
    }
    opts.progress?.(expected - 1);
  }
  const beyond = [...checkpoints.keys()].filter((h) => h >= expected).sort((x, y) => x - y)[0];
  if (beyond !== undefined) return bad(beyond, `block ${beyond} is missing: the chain ends below a checkpoint`);
  const [head] = await sql<{ height: string; hash: string; cursor_txid: string; cursor_entry: string }[]>`
    SELECT height, hash, cursor_txid, cursor_entry FROM ledger_head WHERE id = 1`;
  if (
    !head ||
    Number(head.height) !== expected - 1 ||
    head.hash !== prevHash ||
    String(head.cursor_txid) !== chainAt.txid ||
    String(head.cursor_entry) !== chainAt.entry
  ) {
    return bad(Number(head?.height ?? 0), 'the head does not match the last block');
  }
  return { ok: true, blocks: expected - 1, entries, head: `${expected - 1}:${prevHash}`, assets: money.totals() };
}

/** Why a block does not check out, or undefined. */
function checkBlock(b: BlockRow, entries: readonly ChainedEntry[], prevHash: string): string | undefined {
  if (b.prev_hash !== prevHash) return 'prev_hash does not match the previous block';
  if (entries.length !== b.entry_count) return `holds ${entries.length} entries, its header says ${b.entry_count}`;
  for (const [i, e] of entries.entries()) {
    if (e.index !== i) return `entry index ${i} is missing`;
    if (leafHash(e.body) !== e.leafHash) return `entry ${e.entryId} was altered (its body does not hash to its leaf)`;
    if (bodyEntryId(e.body) !== e.entryId) return `entry ${e.entryId} carries another entry's body`;
  }
  const root = merkleRoot(entries.map((e) => e.leafHash));
  if (root !== b.merkle_root) return 'merkle_root does not match its entries';
  const hash = blockHash({
    height: Number(b.height),
    prevHash: b.prev_hash,
    merkleRoot: b.merkle_root,
    entryCount: b.entry_count,
    createdAt: b.created_at.toISOString(),
  });
  if (hash !== b.hash) return 'hash does not match its header';
  return undefined;
}

function bodyEntryId(body: string): unknown {
  try {
    return (JSON.parse(body) as { entryId?: unknown }).entryId;
  } catch {
    return undefined;
  }
}
