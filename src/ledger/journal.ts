import type { Sql } from '../store/db.js';
import { blockHash, entryBody, type EntrySource } from './block.js';
import { leafHash, merkleRoot } from './merkle.js';

export interface WrittenBlock {
  height: number;
  hash: string;
  merkleRoot: string;
  entryCount: number;
  createdAt: string;
}

interface OutboxRow {
  id: string;
  actor_type: string;
  actor_key: string;
  msg_id: string;
  seq: number;
  payload: unknown;
  created_at: Date;
}

/**
 * Writes the next block of the journal from up to `maxEntries` `ledger` rows of the outbox, in
 * one transaction: the rows leave the outbox and become the block's entries (each with its
 * height and index), the block is inserted and the head moves. The head row's lock serializes writers (two worker processes never fork the chain), and
 * a crash anywhere before COMMIT leaves nothing behind: the rows are simply taken again.
 * Returns undefined when there was nothing to write.
 */
export async function appendBlock(
  sql: Sql,
  opts: { maxEntries: number; now: Date; anchor: boolean },
): Promise<WrittenBlock | undefined> {
  return sql.begin(async (tx) => {
    const [head] = await tx<{ height: string; hash: string }[]>`
      SELECT height, hash FROM ledger_head WHERE id = 1 FOR UPDATE`;
    if (!head) throw new Error('ledger_head row is missing: run the migrations');
    // The rows move out of the outbox into the block: a delete is several times cheaper than
    // marking them (no new row versions, no index entries), and the outbox stays small.
    const rows = await tx<OutboxRow[]>`
      DELETE FROM outbox WHERE id IN (
        SELECT id FROM outbox WHERE topic = 'ledger' AND processed_at IS NULL ORDER BY id LIMIT ${opts.maxEntries})
      RETURNING id, actor_type, actor_key, msg_id, seq, payload, created_at`;
    rows.sort((x, y) => (BigInt(x.id) < BigInt(y.id) ? -1 : 1));
    if (rows.length === 0) return undefined;

    const sources: EntrySource[] = rows.map((r) => ({
      id: String(r.id),
      actorType: r.actor_type,
      actorKey: r.actor_key,
      msgId: r.msg_id,
      seq: r.seq,
      payload: r.payload,
      createdAt: r.created_at.toISOString(),
    }));
    const bodies = sources.map(entryBody);
    const leaves = bodies.map(leafHash);
    const createdAt = opts.now.toISOString();
    const header = {
      height: Number(head.height) + 1,
      prevHash: head.hash,
      merkleRoot: merkleRoot(leaves),
      entryCount: rows.length,
      createdAt,
    };
    const hash = blockHash(header);
    // An entry that names a `ref` (an ITMO claim's id) can be found by it (019_itmo.sql).
    const refOf = (s: EntrySource): string | null => {
      const ref = (s.payload as { ref?: unknown } | null)?.ref;
      return typeof ref === 'string' ? ref : null;
    };
    // The entries travel as one JSON document (not five arrays the driver escapes element by
    // element: 2% of the worker's CPU per redemption went to escaping the bodies' quotes).
    const entries = JSON.stringify(
      sources.map((s, i) => ({ id: s.id, idx: i, leaf: leaves[i], body: bodies[i], ref: refOf(s) })),
    );

    await tx`
      INSERT INTO ledger_blocks (height, prev_hash, merkle_root, hash, entry_count, created_at, anchor_status)
      VALUES (${header.height}, ${header.prevHash}, ${header.merkleRoot}, ${hash}, ${header.entryCount},
              ${createdAt}, ${opts.anchor ? 'pending' : 'none'})`;
    await tx`
      INSERT INTO ledger_entries (entry_id, height, idx, leaf_hash, body, ref)
      SELECT x.id, ${header.height}, x.idx, x.leaf, x.body, x.ref
      FROM json_to_recordset(${entries}::text::json) AS x(id bigint, idx int, leaf text, body text, ref text)`;
    await tx`UPDATE ledger_head SET height = ${header.height}, hash = ${hash} WHERE id = 1`;
    return { height: header.height, hash, merkleRoot: header.merkleRoot, entryCount: header.entryCount, createdAt };
  });
}
