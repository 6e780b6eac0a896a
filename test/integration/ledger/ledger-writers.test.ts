import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planned } from '../../../src/ledger/chain-statements.js';
import { appendBlock } from '../../../src/ledger/journal.js';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { LedgerReads } from '../../../src/ledger/ledger-reads.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';
import { enqueueSurveyEntries, unchainedEntries } from '../../support/ledger-records.js';

describe('ledger: writers racing, and the writer state in ledger_head', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  const enqueue = (from: number, n: number) => enqueueSurveyEntries(env.sql, from, n, 7);

  it('never forks the chain when writers append at the same time (the head row serializes them)', async () => {
    await enqueue(0, 2_000);
    // Eight appenders at once, as if eight lease holders believed they were the writer. Each goes
    // on until nothing waits: a transaction another file holds open on the server can make one
    // find nothing to chain for a moment (the xmin rule), which is not the end.
    const deadline = Date.now() + 20_000;
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async () => {
        let n = 0;
        while (Date.now() < deadline) {
          if (await appendBlock(env.sql, { maxEntries: 37, now: new Date(), anchor: false })) n++;
          else if ((await unchainedEntries(env.sql)) === 0) break;
          else await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return n;
      }),
    );
    const result = await verifyJournal(env.sql);
    expect(result).toMatchObject({ ok: true, entries: 2_000, blocks: Math.ceil(2_000 / 37) });
    expect(rounds.reduce((x, y) => x + y, 0)).toBe(Math.ceil(2_000 / 37));
  });

  it('never passes over an entry of a transaction still open when later entries committed', async () => {
    const [{ height: before } = { height: '0' }] = await env.sql<{ height: string }[]>`SELECT height FROM ledger_head`;
    // A commit that takes its entry id first and commits last: its id is below one already
    // committed. A writer going by ids alone would chain the later one and skip this one for good.
    const slow = await env.sql.reserve();
    try {
      await slow`BEGIN`;
      const [early] = await slow<{ entry_id: string }[]>`
        INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
        VALUES ('survey', 'slow', '1-0', 0, '{"type":"survey.created"}') RETURNING entry_id`;
      const [late] = await env.sql<{ entry_id: string }[]>`
        INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
        VALUES ('survey', 'fast', '1-0', 0, '{"type":"survey.created"}') RETURNING entry_id`;
      expect(BigInt(early!.entry_id)).toBeLessThan(BigInt(late!.entry_id));
      // While the first is open, nothing after it is chained.
      expect(await appendBlock(env.sql, { maxEntries: 100, now: new Date(), anchor: false })).toBeUndefined();
      await slow`COMMIT`;
      // Then both, the first one's first (another file's open transaction may hold one back a moment).
      let chained = 0;
      await eventually(
        async () => {
          chained += (await appendBlock(env.sql, { maxEntries: 100, now: new Date(), anchor: false }))?.entryCount ?? 0;
          return chained;
        },
        (n) => n === 2,
      );
      const reads = new LedgerReads(env.sql);
      const [first, second] = [await reads.entry(early!.entry_id), await reads.entry(late!.entry_id)];
      expect(first?.block.height).toBeGreaterThan(Number(before));
      expect([first?.entry, second?.entry]).toMatchObject([{ actor: { key: 'slow' } }, { actor: { key: 'fast' } }]);
      expect(await verifyJournal(env.sql)).toMatchObject({ ok: true, entries: 2_002 });
    } finally {
      slow.release();
    }
  });

  it('clears a failure recorded by an earlier process once it writes again', async () => {
    await env.sql`UPDATE ledger_head SET last_error = 'chain unreachable (from a process that died)', last_error_at = now()`;
    const [{ height: before } = { height: '0' }] = await env.sql<{ height: string }[]>`SELECT height FROM ledger_head`;
    await enqueue(10_000, 5);
    const actor = new LedgerWriter({
      sql: env.sql,
      log: env.log,
      ownerId: 'writer-test',
      clock: () => new Date(),
      options: { batchSize: 100, batchMs: 20, leaseMs: 1_000 },
    });
    actor.start();
    try {
      const head = await eventually(
        async () =>
          (
            await env.sql<{ last_error: string | null; height: string }[]>`SELECT last_error, height FROM ledger_head`
          )[0],
        // Cleared, and the block written (the error may clear a moment before: a round with nothing
        // chainable yet, while another file's transaction holds the entries back, is a success too).
        (h) => h?.last_error === null && Number(h.height) === Number(before) + 1,
      );
      expect(head?.last_error).toBeNull();
      expect(Number(head?.height)).toBe(Number(before) + 1);
    } finally {
      await actor.close();
    }
    const [lease] = await env.sql<{ lease_owner: string | null }[]>`SELECT lease_owner FROM ledger_head`;
    expect(lease?.lease_owner).toBeNull();
  });

  it('proves the latest chained entry of a ref, not hidden by a newer one still waiting for its block', async () => {
    const write = (msg: string) => env.sql`
      INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload, ref)
      VALUES ('account', 'did:key:itmo', ${msg}, 0, '{"type":"itmo.claimed","ref":"itmo-1"}', 'itmo-1')`;
    await write('1-0');
    await eventually(
      () =>
        appendBlock(env.sql, { maxEntries: 100, now: new Date(), anchor: false }).then(() => unchainedEntries(env.sql)),
      (n) => n === 0,
    );
    const reads = new LedgerReads(env.sql);
    const chained = await reads.entryByRef('itmo-1');
    expect(chained?.entry).toMatchObject({ msgId: '1-0' });
    await write('2-0'); // newer, not in a block yet
    expect((await reads.entryByRef('itmo-1'))?.entryId).toBe(chained?.entryId);
    // Once in a block, the newer one is the proof.
    await eventually(
      () =>
        appendBlock(env.sql, { maxEntries: 100, now: new Date(), anchor: false }).then(() => unchainedEntries(env.sql)),
      (n) => n === 0,
    );
    expect((await reads.entryByRef('itmo-1'))?.entry).toMatchObject({ msgId: '2-0' });
  });

  it("stops, saying why, when the server's transaction ids are behind the cursor (a restore elsewhere)", async () => {
    const [head] = await env.sql<{ cursor_txid: string }[]>`SELECT cursor_txid FROM ledger_head`;
    await env.sql`UPDATE ledger_head SET cursor_txid = '999999999999'::xid8`;
    try {
      await expect(appendBlock(env.sql, { maxEntries: 100, now: new Date(), anchor: false })).rejects.toThrow(
        "the server's transaction ids are behind the ledger's cursor",
      );
    } finally {
      await env.sql`UPDATE ledger_head SET cursor_txid = ${head!.cursor_txid}::xid8`;
    }
  });

  it('plans range statements with their values in the text, each checked to be a decimal integer', async () => {
    expect(await planned<{ n: string }>(env.sql, 'SELECT $1::bigint + $2::bigint AS n', ['40', 2])).toEqual([
      { n: '42' },
    ]);
    expect(() => planned(env.sql, 'SELECT $1::bigint', ["1'; DROP TABLE ledger_entries; --"])).toThrow(
      'not a decimal integer',
    );
  });

  it('reports the ledger stalled, not ok, when entries wait and no worker holds the writer lease', async () => {
    const reads = new LedgerReads(env.sql);
    await env.sql`UPDATE ledger_head SET lease_owner = NULL, lease_until = NULL, last_error = NULL`;
    expect(await reads.status()).toMatchObject({ status: 'ok', writer: 'none', queuedEntries: 0 });
    await enqueue(20_000, 3);
    expect(await reads.status()).toMatchObject({ status: 'stalled', writer: 'none', queuedEntries: 3 });
  });
});
