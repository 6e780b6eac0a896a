import { z } from 'zod';
import type { Sql } from '../store/db.js';
import { blockEntries, rangeOf, type RangeColumns } from './block-entries.js';
import { BACKLOG, BLOCK_OF_ENTRY, planned } from './chain-statements.js';
import { inclusionPath, type ProofStep } from './merkle.js';

/** A block as the API shows it. */
export interface BlockView {
  height: number;
  hash: string;
  prevHash: string;
  merkleRoot: string;
  entryCount: number;
  createdAt: string;
  /** Cosmos backend: the block's transaction; null on the journal backend. */
  anchor: {
    status: 'pending' | 'anchored';
    txHash: string | null;
    chainHeight: number | null;
    error: string | null;
  } | null;
}

export interface LedgerStatus {
  /** `degraded` while the writer's last attempt failed (entries wait for their block, none is lost). */
  status: 'ok' | 'degraded' | 'stalled';
  height: number;
  queuedEntries: number;
  oldestQueuedMs: number | null;
  pendingAnchors: number;
  /** Whether a worker holds the ledger writer's lease. */
  writer: 'active' | 'none';
  lastError: string | null;
  lastErrorAt: string | null;
}

export interface EntryProof {
  entryId: string;
  entry: unknown;
  /** The entry's canonical JSON exactly as hashed: `leafHash = SHA-256(0x00 ‖ body)`. */
  body: string;
  leafHash: string;
  block: BlockView;
  index: number;
  /** Sibling hashes from the leaf to the root (RFC 6962 tree); folding them gives `block.merkleRoot`. */
  merklePath: ProofStep[];
}

/** What the API answers of a block ({@link BlockView}), an entry's proof and the ledger's state. */
export const blockViewSchema = z.strictObject({
  height: z.number().int().min(1),
  hash: z.string(),
  prevHash: z.string(),
  merkleRoot: z.string(),
  entryCount: z.number().int(),
  createdAt: z.iso.datetime(),
  anchor: z
    .strictObject({
      status: z.enum(['pending', 'anchored']),
      txHash: z.string().nullable(),
      chainHeight: z.number().int().nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
}) satisfies z.ZodType<BlockView>;

export const entryProofSchema = z.strictObject({
  entryId: z.string(),
  /** The entry as recorded (a voucher issued, a claim submitted…). */
  entry: z.unknown(),
  body: z.string(),
  leafHash: z.string(),
  block: blockViewSchema,
  index: z.number().int().min(0),
  merklePath: z.array(z.strictObject({ side: z.enum(['left', 'right']), hash: z.string() })),
}) satisfies z.ZodType<EntryProof>;

export const ledgerStatusSchema = z.strictObject({
  status: z.enum(['ok', 'degraded', 'stalled']),
  height: z.number().int().min(0),
  queuedEntries: z.number().int().min(0),
  oldestQueuedMs: z.number().nullable(),
  pendingAnchors: z.number().int().min(0),
  writer: z.enum(['active', 'none']),
  lastError: z.string().nullable(),
  lastErrorAt: z.iso.datetime().nullable(),
}) satisfies z.ZodType<LedgerStatus>;

interface BlockRow {
  height: string;
  hash: string;
  prev_hash: string;
  merkle_root: string;
  entry_count: number;
  created_at: Date;
  anchor_status: 'none' | 'pending' | 'anchored';
  tx_hash: string | null;
  chain_height: string | null;
  anchor_error: string | null;
}

function view(r: BlockRow): BlockView {
  return {
    height: Number(r.height),
    hash: r.hash,
    prevHash: r.prev_hash,
    merkleRoot: r.merkle_root,
    entryCount: r.entry_count,
    createdAt: r.created_at.toISOString(),
    anchor:
      r.anchor_status === 'none'
        ? null
        : {
            status: r.anchor_status,
            txHash: r.tx_hash,
            chainHeight: r.chain_height === null ? null : Number(r.chain_height),
            error: r.anchor_error,
          },
  };
}

const columns =
  'height, hash, prev_hash, merkle_root, entry_count, created_at, anchor_status, tx_hash, chain_height, anchor_error';
/** A block's columns and its range (the entries it holds: block-entries.ts). */
const blockColumns = `${columns}, after_txid, after_entry, last_txid, last_entry`;

/** Reads of the journal for the ledger routes and /health. */
export class LedgerReads {
  constructor(private readonly sql: Sql) {}

  /** Newest first. Heights run 1..head without a gap, so the head is the total. */
  async blocks(limit: number, offset: number): Promise<{ items: BlockView[]; total: number }> {
    const [head] = await this.sql<{ height: string }[]>`SELECT height FROM ledger_head WHERE id = 1`;
    const total = Number(head?.height ?? 0);
    const top = total - offset;
    const rows =
      top < 1
        ? []
        : await this.sql<BlockRow[]>`
            SELECT ${this.sql.unsafe(columns)} FROM ledger_blocks
            WHERE height <= ${top} AND height > ${top - limit} ORDER BY height DESC`;
    return { items: rows.map(view), total };
  }

  async block(height: number): Promise<BlockView | undefined> {
    const [row] = await this.sql<BlockRow[]>`
      SELECT ${this.sql.unsafe(columns)} FROM ledger_blocks WHERE height = ${height}`;
    return row && view(row);
  }

  /** An entry with its block and Merkle path; undefined while it is not in a block yet. */
  async entry(entryId: string): Promise<EntryProof | undefined> {
    const [e] = await this.sql<{ height: string | null; txid: string | null }[]>`
      SELECT height, txid FROM ledger_entries WHERE entry_id = ${entryId}`;
    if (!e) return undefined;
    const [row] =
      e.height !== null
        ? await this.sql<(BlockRow & RangeColumns)[]>`
            SELECT ${this.sql.unsafe(blockColumns)} FROM ledger_blocks WHERE height = ${e.height}`
        : // The first block whose range ends at or after the entry: its range holds it, if any does.
          await planned<BlockRow & RangeColumns>(this.sql, BLOCK_OF_ENTRY(blockColumns), [e.txid ?? '0', entryId]);
    if (!row) return undefined;
    const entries = await blockEntries(this.sql, { height: Number(row.height), range: rangeOf(row) });
    const index = entries.findIndex((x) => x.entryId === entryId);
    const found = entries[index];
    if (!found) return undefined;
    return {
      entryId,
      entry: JSON.parse(found.body) as unknown,
      body: found.body,
      leafHash: found.leafHash,
      block: view(row),
      index,
      merklePath: inclusionPath(
        entries.map((x) => x.leafHash),
        index,
      ),
    };
  }

  /**
   * The latest entry in a block that names `ref` (an ITMO claim's id), with its proof; undefined
   * while none is in a block (a newer one still waiting for its block does not hide an older one).
   */
  async entryByRef(ref: string): Promise<EntryProof | undefined> {
    const [row] = await this.sql<{ entry_id: string }[]>`
      SELECT e.entry_id FROM ledger_entries e, ledger_head h
      WHERE e.ref = ${ref} AND h.id = 1
        AND (e.height IS NOT NULL OR (e.txid, e.entry_id) <= (h.cursor_txid, h.cursor_entry))
      ORDER BY e.entry_id DESC LIMIT 1`;
    return row ? this.entry(String(row.entry_id)) : undefined;
  }

  /** Whether an entry is written but not in a block yet (a 404 then says "not yet"). */
  async isQueued(entryId: string): Promise<boolean> {
    const [row] = await planned<{ n: number }>(
      this.sql,
      `SELECT 1 AS n FROM ledger_entries e, ledger_head h
       WHERE e.entry_id = $1 AND h.id = 1 AND e.txid IS NOT NULL AND (e.txid, e.entry_id) > (h.cursor_txid, h.cursor_entry)`,
      [entryId],
    );
    return row !== undefined;
  }

  /** The ledger's state for /health: head, backlog, anchoring, the writer and its last failure. */
  async status(): Promise<LedgerStatus> {
    const [head] = await this.sql<
      {
        height: string;
        writer: boolean;
        last_error: string | null;
        last_error_at: Date | null;
        cursor_txid: string;
        cursor_entry: string;
        pending: string;
      }[]
    >`
      SELECT h.height, coalesce(h.lease_until > now(), false) AS writer, h.last_error, h.last_error_at,
             h.cursor_txid, h.cursor_entry,
             (SELECT count(*) FROM ledger_blocks WHERE anchor_status = 'pending') AS pending
      FROM ledger_head h WHERE h.id = 1`;
    if (!head) throw new Error('ledger_head row is missing: run the migrations');
    // The backlog, counted from the cursor's values: planned with them, it reads the index from
    // there, not a third of a table that never stops growing (a guess made without them).
    const [backlog] = await planned<{ queued: string; oldest: Date | null }>(this.sql, BACKLOG, [
      String(head.cursor_txid),
      String(head.cursor_entry),
    ]);
    const row = { ...head, queued: backlog?.queued ?? '0', oldest: backlog?.oldest ?? null };
    return {
      // Entries waiting with no writer at all (every worker down, or none deployed) is no "ok".
      status: row.last_error ? 'degraded' : !row.writer && Number(row.queued) > 0 ? 'stalled' : 'ok',
      height: Number(row.height),
      queuedEntries: Number(row.queued),
      oldestQueuedMs: row.oldest ? Math.max(0, Date.now() - row.oldest.getTime()) : null,
      pendingAnchors: Number(row.pending),
      writer: row.writer ? 'active' : 'none',
      lastError: row.last_error,
      lastErrorAt: row.last_error_at?.toISOString() ?? null,
    };
  }
}
