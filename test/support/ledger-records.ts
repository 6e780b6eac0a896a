import { blockEntries, rangeOf, type ChainedEntry, type RangeColumns } from '../../src/ledger/block-entries.js';
import type { Sql } from '../../src/store/db.js';

export interface LedgerRecord {
  actorType: string;
  actorKey: string;
  payload: Record<string, unknown>;
}

/**
 * Every ledger entry an actor produced, chained into a block or not yet: written once into
 * ledger_entries (migration 026), or stored with its block's height by the writer before.
 */
export async function ledgerRecords(
  sql: Sql,
  filter: { actorType?: string; type?: string } = {},
): Promise<LedgerRecord[]> {
  const rows = await sql<{ actor_type: string; actor_key: string; payload: Record<string, unknown> }[]>`
    SELECT actor_type, actor_key, payload FROM (
      SELECT coalesce(actor_type, b -> 'actor' ->> 'type') AS actor_type,
             coalesce(actor_key, b -> 'actor' ->> 'key') AS actor_key,
             coalesce(payload, b -> 'payload') AS payload
      FROM (SELECT actor_type, actor_key, payload, body::jsonb AS b FROM ledger_entries) AS e
    ) AS x
    WHERE (${filter.actorType ?? null}::text IS NULL OR actor_type = ${filter.actorType ?? null})
      AND (${filter.type ?? null}::text IS NULL OR payload ->> 'type' = ${filter.type ?? null})`;
  return rows.map((r) => ({ actorType: r.actor_type, actorKey: r.actor_key, payload: r.payload }));
}

/**
 * Writes `n` survey entries numbered from `from`, spread over `actors` survey actors, as commits
 * would: waiting for their block.
 */
export function enqueueSurveyEntries(sql: Sql, from: number, n: number, actors: number) {
  return sql`
    INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
    SELECT 'survey', 's-' || (i % ${actors}::int), i || '-0', 0, jsonb_build_object('type', 'survey.created', 'n', i)
    FROM generate_series(${from}::int, ${from + n - 1}::int) AS i`;
}

/** How many entries wait for their block (written, not chained yet). */
export async function unchainedEntries(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM ledger_entries e, ledger_head h
    WHERE h.id = 1 AND e.txid IS NOT NULL AND (e.txid, e.entry_id) > (h.cursor_txid, h.cursor_entry)`;
  return row?.n ?? 0;
}

/** Every chained entry as hashed (its canonical body), block by block, in the chain's order. */
export async function journalEntries(sql: Sql): Promise<ChainedEntry[]> {
  const blocks = await sql<({ height: string } & RangeColumns)[]>`
    SELECT height, after_txid, after_entry, last_txid, last_entry FROM ledger_blocks ORDER BY height`;
  const entries: ChainedEntry[] = [];
  for (const b of blocks) entries.push(...(await blockEntries(sql, { height: Number(b.height), range: rangeOf(b) })));
  return entries;
}
