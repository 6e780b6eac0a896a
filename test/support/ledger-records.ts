import type { Sql } from '../../src/store/db.js';

export interface LedgerRecord {
  actorType: string;
  actorKey: string;
  payload: Record<string, unknown>;
}

/**
 * Every ledger entry an actor produced, wherever it is now: still in the outbox, or moved into
 * a journal block by the ledger actor. One statement, so one snapshot: an entry moving between
 * the two during the read is seen exactly once.
 */
export async function ledgerRecords(
  sql: Sql,
  filter: { actorType?: string; type?: string } = {},
): Promise<LedgerRecord[]> {
  const rows = await sql<{ actor_type: string; actor_key: string; payload: Record<string, unknown> }[]>`
    SELECT actor_type, actor_key, payload FROM (
      SELECT actor_type, actor_key, payload FROM outbox WHERE topic = 'ledger'
      UNION ALL
      SELECT b -> 'actor' ->> 'type', b -> 'actor' ->> 'key', b -> 'payload'
      FROM (SELECT body::jsonb AS b FROM ledger_entries) AS e
    ) AS x
    WHERE (${filter.actorType ?? null}::text IS NULL OR actor_type = ${filter.actorType ?? null})
      AND (${filter.type ?? null}::text IS NULL OR payload ->> 'type' = ${filter.type ?? null})`;
  return rows.map((r) => ({ actorType: r.actor_type, actorKey: r.actor_key, payload: r.payload }));
}
