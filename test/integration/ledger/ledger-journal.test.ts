import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { verifyInclusion, type ProofStep } from '../../../src/ledger/merkle.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { adminKey, api, type Api } from '../../support/api.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';
import { journalEntries, unchainedEntries } from '../../support/ledger-records.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../support/voucher-fixtures.js';

const BATCH = 64;

/** Runs `npm run ledger:verify`'s program on this file's schema. */
async function ledgerVerify(env: Isolated, ...args: string[]): Promise<{ code: number | null; out: string }> {
  // Only what the tool needs: the database variables.
  const { DATABASE_URL, DATABASE_SCHEMA } = env.env();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/ledger/verify-cli.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: DATABASE_URL!, DATABASE_SCHEMA: DATABASE_SCHEMA! },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out };
}

describe('ledger: the journal backend', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let regulatorKey = '';

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({
        HEARTH_ADMIN_KEY: adminKey,
        ACTOR_PARTITIONS: '4',
        LEDGER_BATCH_SIZE: String(BATCH),
        LEDGER_BATCH_MS: '50',
      }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    regulatorKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'regulator' } })).body.key as string;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const queued = (): Promise<number> => unchainedEntries(env.sql);
  /** A block's entry rows, as stored (written once: the rows in its range). */
  const rowsOf = (height: number) => env.sql<Record<string, unknown>[]>`
    SELECT e.* FROM ledger_entries e JOIN ledger_blocks b ON b.height = ${height}
    WHERE (e.txid, e.entry_id) > (b.after_txid, b.after_entry) AND (e.txid, e.entry_id) <= (b.last_txid, b.last_entry)
    ORDER BY e.txid, e.entry_id`;

  it('puts the entries of 1,000 concurrent operations in blocks with no gap and no duplicate', async () => {
    const voucherId = await issueVoucher(a, s, 'cert-ledger', 1000);
    const results = await Promise.all(
      Array.from({ length: 1000 }, () =>
        a.call('POST', '/v1/vouchers/redeem', {
          key: s.supplierKey,
          body: { voucherId, supplierDid: s.supplierDid, amount: 1, productId: 'stove-1' },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1000);
    await eventually(queued, (n) => n === 0);

    // Every operation's entry is in exactly one block, and nothing else is.
    const bodies = (await journalEntries(env.sql)).map((e) => ({ entry_id: e.entryId, body: e.body }));
    const payloads = bodies.map((b) => (JSON.parse(b.body) as { payload: { type: string; id?: string } }).payload);
    const redeemed = payloads.filter((p) => p.type === 'voucher.redeemed').map((p) => p.id);
    expect(redeemed.sort()).toEqual(results.map((r) => r.body.id as string).sort());
    expect(payloads.filter((p) => p.type === 'voucher.issued')).toHaveLength(1);
    expect(bodies).toHaveLength(1001);
    expect(new Set(bodies.map((b) => b.entry_id)).size).toBe(1001);
    // Heights run 1..n without a gap; each block holds what its header says, no more than the batch size.
    const blocks = await env.sql<{ height: string; entry_count: number }[]>`
      SELECT height, entry_count FROM ledger_blocks ORDER BY height`;
    expect(blocks.map((b) => Number(b.height))).toEqual(blocks.map((_, i) => i + 1));
    for (const b of blocks) {
      const n = (await rowsOf(Number(b.height))).length;
      expect(n).toBe(b.entry_count);
      expect(n).toBeLessThanOrEqual(BATCH);
    }
    // The blocks' ranges hold every entry once: together they hold all 1,001.
    expect(blocks.reduce((sum, b) => sum + b.entry_count, 0)).toBe(1001);
    expect(blocks.length).toBeGreaterThanOrEqual(Math.ceil(1001 / BATCH));
    expect(await queued()).toBe(0);
    // Each entry's body names the entry row it was computed from.
    expect(bodies.every((b) => (JSON.parse(b.body) as { entryId: string }).entryId === b.entry_id)).toBe(true);
    expect(await verifyJournal(env.sql)).toMatchObject({ ok: true, blocks: blocks.length, entries: 1001 });
  });

  it('serves blocks and an entry with a Merkle path that folds to its block root', async () => {
    const list = await a.call('GET', '/v1/ledger/blocks?limit=2', { key: regulatorKey });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    const newest = list.body.items[0];
    expect(newest.height).toBe(list.body.total);
    const page2 = await a.call('GET', '/v1/ledger/blocks?limit=2&offset=2', { key: regulatorKey });
    expect(page2.body.items.map((b: { height: number }) => b.height)).toEqual([newest.height - 2, newest.height - 3]);
    const past = await a.call('GET', `/v1/ledger/blocks?offset=${list.body.total}`, { key: regulatorKey });
    expect(past.body).toMatchObject({ items: [], total: list.body.total });
    expect(list.body.items[1].hash).toBe(newest.prevHash);
    expect(newest.anchor).toBeNull();

    const one = await a.call('GET', `/v1/ledger/blocks/${newest.height}`, { key: regulatorKey });
    expect(one.body).toEqual(newest);

    const row = (await rowsOf(3))[5] as { entry_id: string } | undefined;
    const proof = await a.call('GET', `/v1/ledger/entries/${row?.entry_id}`, { key: regulatorKey });
    expect(proof.status).toBe(200);
    expect(proof.body).toMatchObject({ entryId: row?.entry_id, index: 5, block: { height: 3 } });
    expect(proof.body.entry.entryId).toBe(row?.entry_id);
    // The exact hashed bytes are served, so any language can recompute the leaf.
    expect(
      createHash('sha256')
        .update(Buffer.from([0]))
        .update(proof.body.body)
        .digest('hex'),
    ).toBe(proof.body.leafHash);
    expect(proof.body.merklePath.length).toBeGreaterThan(0);
    expect(
      verifyInclusion(proof.body.leafHash, proof.body.merklePath as ProofStep[], proof.body.block.merkleRoot),
    ).toBe(true);
    // A proof for another leaf does not fold to the root.
    expect(verifyInclusion('00'.repeat(32), proof.body.merklePath as ProofStep[], proof.body.block.merkleRoot)).toBe(
      false,
    );
  });

  it('answers 403 to other roles, 400 to a bad height or id, and 404 to unknown ones', async () => {
    expect((await a.call('GET', '/v1/ledger/blocks', { key: s.implementerKey })).status).toBe(403);
    expect((await a.call('GET', '/v1/ledger/blocks', { key: '' })).status).toBe(401);
    const bad = await a.call('GET', '/v1/ledger/blocks/abc', { key: regulatorKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect((await a.call('GET', '/v1/ledger/blocks/0', { key: regulatorKey })).status).toBe(400);
    expect((await a.call('GET', '/v1/ledger/entries/-1', { key: regulatorKey })).status).toBe(400);
    const missing = await a.call('GET', '/v1/ledger/blocks/999999', { key: regulatorKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('LEDGER_BLOCK_NOT_FOUND');
    const noEntry = await a.call('GET', '/v1/ledger/entries/99999999', { key: regulatorKey });
    expect(noEntry.body.error.code).toBe('LEDGER_ENTRY_NOT_FOUND');
  });

  it('reports the ledger in /health', async () => {
    const health = await a.call('GET', '/health', { key: '' });
    expect(health.status).toBe(200);
    expect(health.body.ledger).toMatchObject({
      backend: 'journal',
      status: 'ok',
      queuedEntries: 0,
      writer: 'active',
      lastError: null,
    });
    expect(health.body.ledger.height).toBeGreaterThan(10);
  });

  it('makes ledger:verify pass, then fail naming the block whose entry or header was altered', async () => {
    const clean = await ledgerVerify(env);
    expect(clean.out).toMatch(/OK: \d+ blocks/);
    expect(clean.code).toBe(0);

    // Change one amount in one entry of block 4.
    const victim = (await rowsOf(4))[0] as { entry_id: string; payload: { amount: number } };
    await env.sql`UPDATE ledger_entries SET payload = jsonb_set(payload, '{amount}', '100')
                  WHERE entry_id = ${victim.entry_id}`;
    const altered = await ledgerVerify(env);
    expect(altered.code).toBe(1);
    expect(altered.out).toContain('FAILED at block 4: merkle_root does not match its entries');
    await env.sql`UPDATE ledger_entries SET payload = ${env.sql.json(victim.payload)} WHERE entry_id = ${victim.entry_id}`;

    // Drop one entry of block 5 (its range then holds one less).
    const [dropped] = await rowsOf(5);
    await env.sql`DELETE FROM ledger_entries WHERE entry_id = ${dropped!.entry_id as string}`;
    const missing = await ledgerVerify(env);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('FAILED at block 5');
    await env.sql`INSERT INTO ledger_entries ${env.sql(dropped!)}`;

    // Move block 6's time by a second: its header no longer hashes to its hash.
    await env.sql`UPDATE ledger_blocks SET created_at = created_at + interval '1 second' WHERE height = 6`;
    const header = await ledgerVerify(env);
    expect(header.code).toBe(1);
    expect(header.out).toContain('FAILED at block 6');
    await env.sql`UPDATE ledger_blocks SET created_at = created_at - interval '1 second' WHERE height = 6`;

    // Remove block 8 and its entries: the chain has a gap there.
    const block8 = await env.sql`SELECT * FROM ledger_blocks WHERE height = 8`;
    const entries8 = await rowsOf(8);
    await env.sql`DELETE FROM ledger_entries WHERE entry_id IN ${env.sql(entries8.map((e) => e.entry_id as string))}`;
    await env.sql`DELETE FROM ledger_blocks WHERE height = 8`;
    const gap = await ledgerVerify(env);
    expect(gap.code).toBe(1);
    expect(gap.out).toContain('FAILED at block 8: block 8 is missing');
    await env.sql`INSERT INTO ledger_blocks ${env.sql(block8[0]!)}`;
    await env.sql`INSERT INTO ledger_entries ${env.sql(entries8 as unknown as Record<string, unknown>[])}`;

    expect((await ledgerVerify(env)).code).toBe(0);
  });

  it('catches a consistently rewritten tail, or a truncated chain, against a checkpoint recorded earlier', async () => {
    const clean = await ledgerVerify(env);
    const head = /head (\d+:[0-9a-f]{64})/.exec(clean.out)?.[1];
    expect(head).toBeDefined();
    const [height] = head!.split(':');
    const checkpoint = head!;
    // Truncate: drop the last block and move the head back. The chain alone still checks out...
    const last = Number(height);
    const block = await env.sql`SELECT * FROM ledger_blocks WHERE height = ${last}`;
    const entries = await rowsOf(last);
    const [prev] = await env.sql<{ hash: string; last_txid: string; last_entry: string }[]>`
      SELECT hash, last_txid, last_entry FROM ledger_blocks WHERE height = ${last - 1}`;
    await env.sql`DELETE FROM ledger_entries WHERE entry_id IN ${env.sql(entries.map((e) => e.entry_id as string))}`;
    await env.sql`DELETE FROM ledger_blocks WHERE height = ${last}`;
    await env.sql`UPDATE ledger_head SET height = ${last - 1}, hash = ${prev!.hash},
                    cursor_txid = ${prev!.last_txid}::xid8, cursor_entry = ${prev!.last_entry}`;
    try {
      expect((await ledgerVerify(env)).code).toBe(0);
      // ...but not against the checkpoint.
      const truncated = await ledgerVerify(env, checkpoint);
      expect(truncated.code).toBe(1);
      expect(truncated.out).toContain(`FAILED at block ${last}: block ${last} is missing`);
    } finally {
      await env.sql`INSERT INTO ledger_blocks ${env.sql(block[0]!)}`;
      await env.sql`INSERT INTO ledger_entries ${env.sql(entries as unknown as Record<string, unknown>[])}`;
      await env.sql`UPDATE ledger_head SET height = ${last}, hash = ${checkpoint.split(':')[1]!},
                      cursor_txid = ${block[0]!.last_txid as string}::xid8, cursor_entry = ${block[0]!.last_entry as string}`;
    }
    expect((await ledgerVerify(env, checkpoint)).code).toBe(0);
    const wrong = await ledgerVerify(env, `${last}:${'0'.repeat(64)}`);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain(`FAILED at block ${last}: hash differs from the checkpoint`);
    expect((await ledgerVerify(env, 'garbage')).code).toBe(2);
  });

  it('answers LEDGER_ENTRY_PENDING for an entry written but not in a block yet', async () => {
    const gateway = await startHearth(
      env.config({ ROLE: 'gateway', HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4' }),
      env.log,
    );
    try {
      // With no worker running, nothing writes blocks: the entry waits for one.
      await hearth.close();
      const [row] = await env.sql<{ entry_id: string }[]>`
        INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
        VALUES ('voucher', 'v-pending', '1-0', 0, '{"type":"test"}') RETURNING entry_id`;
      const res = await api(gateway.port).call('GET', `/v1/ledger/entries/${row?.entry_id}`, { key: regulatorKey });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('LEDGER_ENTRY_PENDING');
    } finally {
      await gateway.close();
    }
  });
});
