import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash, entryBody, GENESIS_HASH } from '../../../src/ledger/block.js';
import { appendBlock } from '../../../src/ledger/journal.js';
import { LedgerReads } from '../../../src/ledger/ledger-reads.js';
import { leafHash, merkleRoot, verifyInclusion } from '../../../src/ledger/merkle.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { createSql, type Sql } from '../../../src/store/db.js';
import { readMigrations } from '../../../src/store/migrate.js';

/**
 * Migration 026 on a ledger of the old shape: a block chained the old way (its entries stored
 * with height, index, leaf and body), two entries still queued in the outbox, a tell beside them.
 * After it, the queued entries are entries of the new kind (same ids), the next block chains them
 * by range, and the whole chain verifies: old blocks against their stored bodies, new ones
 * against bodies computed from their rows.
 */
describe('migration 026: ledger entries written once', () => {
  const schema = `t_m026_${randomBytes(4).toString('hex')}`;
  let sql: Sql;
  let queued: string[] = [];
  let oldEntry = '';

  beforeAll(async () => {
    sql = createSql({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', schema, max: 2 });
    await sql.unsafe(`CREATE SCHEMA "${schema}"`);
    const migrations = (await readMigrations()).filter((m) => m.id < 26);
    for (const m of migrations) await sql.unsafe(m.sql);

    // Block 1 as the old writer wrote it: three outbox rows moved into ledger_entries.
    const taken = await sql<{ id: string; created_at: Date }[]>`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      SELECT 'ledger', 'voucher', 'v-old', i || '-0', 0, jsonb_build_object('type', 'voucher.issued', 'n', i)
      FROM generate_series(1, 3) AS i RETURNING id, created_at`;
    const bodies = taken.map((r, i) =>
      entryBody({
        id: String(r.id),
        actorType: 'voucher',
        actorKey: 'v-old',
        msgId: `${i + 1}-0`,
        seq: 0,
        payload: { type: 'voucher.issued', n: i + 1 },
        createdAt: r.created_at.toISOString(),
      }),
    );
    const leaves = bodies.map(leafHash);
    const header = {
      height: 1,
      prevHash: GENESIS_HASH,
      merkleRoot: merkleRoot(leaves),
      entryCount: 3,
      createdAt: new Date().toISOString(),
    };
    const hash = blockHash(header);
    await sql`DELETE FROM outbox WHERE topic = 'ledger'`;
    await sql`INSERT INTO ledger_blocks (height, prev_hash, merkle_root, hash, entry_count, created_at)
              VALUES (1, ${header.prevHash}, ${header.merkleRoot}, ${hash}, 3, ${header.createdAt})`;
    for (const [i, r] of taken.entries()) {
      await sql`INSERT INTO ledger_entries (entry_id, height, idx, leaf_hash, body)
                VALUES (${r.id}, 1, ${i}, ${leaves[i]!}, ${bodies[i]!})`;
    }
    await sql`UPDATE ledger_head SET height = 1, hash = ${hash}`;
    oldEntry = String(taken[1]!.id);

    // Two entries still waiting in the outbox, and a tell.
    const waiting = await sql<{ id: string }[]>`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      VALUES ('ledger', 'voucher', 'v-new', '4-0', 0, '{"type":"voucher.redeemed","ref":"r-4"}'),
             ('ledger', 'voucher', 'v-new', '5-0', 0, '{"type":"voucher.redeemed"}'),
             ('tell', 'voucher', 'v-new', '5-0', 1, '{"to":"account"}')
      RETURNING id`;
    queued = waiting.slice(0, 2).map((r) => String(r.id));

    const m026 = (await readMigrations()).find((m) => m.id === 26);
    await sql.unsafe(m026!.sql);
  });

  afterAll(async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end({ timeout: 5 });
  });

  it('moves the queued entries out of the outbox, keeping their ids, and leaves the tells', async () => {
    const outbox = await sql<{ topic: string }[]>`SELECT topic FROM outbox`;
    expect(outbox).toEqual([{ topic: 'tell' }]);
    const moved = await sql<{ entry_id: string; txid: string | null; ref: string | null }[]>`
      SELECT entry_id, txid, ref FROM ledger_entries WHERE height IS NULL ORDER BY entry_id`;
    expect(moved.map((e) => String(e.entry_id))).toEqual(queued);
    expect(moved.every((e) => e.txid !== null)).toBe(true);
    expect(moved.map((e) => e.ref)).toEqual(['r-4', null]);
    // New entries are numbered after every id the outbox gave.
    const [next] = await sql<{ entry_id: string }[]>`
      INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
      VALUES ('voucher', 'v-new', '6-0', 0, '{"type":"voucher.redeemed"}') RETURNING entry_id`;
    expect(BigInt(next!.entry_id)).toBeGreaterThan(BigInt(queued[1]!));
    // A ledger writer of the old version (height set, the txid taken by default) is refused.
    await expect(
      sql`INSERT INTO ledger_entries (entry_id, height, idx, leaf_hash, body) VALUES (999999, 1, 9, 'x', '{}')`,
    ).rejects.toThrow(/ledger_entries_one_kind/);
  });

  it('chains them after the old block, and the whole chain verifies, old entries and new', async () => {
    // Another file's transaction open on the server may hold an entry back a moment: append until all three are in.
    const heights: number[] = [];
    for (let i = 0, n = 0; i < 100 && n < 3; i++) {
      const block = await appendBlock(sql, { maxEntries: 100, now: new Date(), anchor: false });
      if (block) [n, heights[heights.length]] = [n + block.entryCount, block.height];
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(heights[0]).toBe(2);
    expect(await verifyJournal(sql)).toMatchObject({ ok: true, blocks: 1 + heights.length, entries: 6 });

    const reads = new LedgerReads(sql);
    for (const id of [oldEntry, queued[0]!]) {
      const proof = await reads.entry(id);
      expect(proof?.entryId).toBe(id);
      expect(verifyInclusion(proof!.leafHash, proof!.merklePath, proof!.block.merkleRoot)).toBe(true);
    }
    expect((await reads.entry(oldEntry))?.block.height).toBe(1);
    expect((await reads.entryByRef('r-4'))?.block.height).toBe(2);
  });
});
