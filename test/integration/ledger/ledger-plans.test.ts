import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKLOG, ENTRIES_IN_RANGE, NEXT_TO_CHAIN, planned } from '../../../src/ledger/chain-statements.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/**
 * The statements that range over the chain's order reach their rows through an index on a large
 * `ledger_entries`, with the values `planned()` writes into their text: a statement whose
 * predicates stopped matching the partial index (`txid IS NOT NULL`) or whose order stopped
 * matching it would scan and sort the table on every block and every /health. EXPLAIN plans its
 * statement with any bound values as constants, so this does not show the forced generic plan
 * that parameters got (a review measured that one with auto_explain: /health's backlog count ran
 * as a parallel sequential scan, 280 ms on 600,000 rows); `planned()` keeps values out of
 * parameters for that reason.
 */
const ROWS = 200_000;
const PER_COMMIT = 2_000;

describe('ledger statements on a large ledger_entries', () => {
  let env: Isolated;
  let cursor: { txid: string; entry: string };
  let end: { txid: string; entry: string };

  beforeAll(async () => {
    env = await isolated();
    // Entries as commits write them: many transactions, a couple of thousand entries each.
    for (let from = 0; from < ROWS; from += PER_COMMIT) {
      await env.sql`
        INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
        SELECT 'voucher', 'v-' || (i % 97), i || '-0', 0, '{"type":"voucher.redeemed"}'::jsonb
        FROM generate_series(${from}::int, ${from + PER_COMMIT - 1}::int) AS i`;
    }
    await env.sql`ANALYZE ledger_entries`; // as autovacuum does
    const at = async (offset: number) => {
      const [row] = await env.sql<{ txid: string; entry_id: string }[]>`
        SELECT txid::text AS txid, entry_id::text AS entry_id FROM ledger_entries
        ORDER BY txid, entry_id OFFSET ${offset} LIMIT 1`;
      return { txid: row!.txid, entry: row!.entry_id };
    };
    cursor = await at(ROWS - 600); // the writer a block or so behind
    end = await at(ROWS - 100);
  }, 120_000);

  afterAll(async () => {
    await env.cleanup();
  });

  const plan = async (text: string, params: Array<string | number>) =>
    (await planned<{ 'QUERY PLAN': string }>(env.sql, `EXPLAIN ${text}`, params))
      .map((r) => r['QUERY PLAN'])
      .join('\n');

  it.each([
    ['the next entries to chain', NEXT_TO_CHAIN, () => [cursor.txid, cursor.entry, 500]],
    ["a block's entries", ENTRIES_IN_RANGE, () => [cursor.txid, cursor.entry, end.txid, end.entry]],
    ['the backlog in /health', BACKLOG, () => [cursor.txid, cursor.entry]],
  ] as const)('%s: through the chain index, no scan of the table', async (_, text, params) => {
    const shown = await plan(text, [...params()]);
    expect(shown).toContain('ledger_entries_chain');
    expect(shown).not.toMatch(/Seq Scan on ledger_entries/);
  });
});
