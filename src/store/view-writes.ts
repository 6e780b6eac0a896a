import type { BatchCommit } from '../actors/runtime/ports.js';
import type { Sql } from './db.js';

type Fragment = ReturnType<Sql['unsafe']>;

/** The read model rows of a group commit, by table: what {@link viewWrites} turns into SQL. */
export function viewDocuments(
  batches: readonly BatchCommit[],
): Map<string, { columns: readonly string[]; rows: string; deletes: boolean }> {
  const byTable = new Map<string, { columns: readonly string[]; rows: unknown[]; deletes: boolean }>();
  for (const b of batches) {
    if (!b.view || b.view.rows.length === 0) continue;
    const t = byTable.get(b.view.table) ?? { columns: b.view.columns, rows: [], deletes: false };
    byTable.set(b.view.table, t);
    for (const r of b.view.rows) {
      t.rows.push({ type: b.type, partition: b.partition, key: r.key, row: r.row ?? null });
      if (!r.row) t.deletes = true;
    }
  }
  return new Map(
    [...byTable].map(([table, t]) => [table, { columns: t.columns, rows: JSON.stringify(t.rows), deletes: t.deletes }]),
  );
}

/**
 * One or two more sub-statements per read model table of the commit statement (which defines
 * `fence`): upsert the rows of held partitions and, only when the batch has one whose row is
 * null, delete those by row address (each reached through its primary key: a delete joined to
 * its input could be planned as a scan of the whole table when its statistics are stale). Table
 * and column names are plain identifiers checked at start (read-model.ts), so they are written
 * as such.
 */
export function viewWrites(sql: Sql, docs: ReturnType<typeof viewDocuments>): Fragment {
  // An empty list would be taken for a parameter: no read model rows, no text at all.
  if (docs.size === 0) return sql``;
  const ctes = [...docs].map(([table, { columns, rows, deletes }], i) => {
    const t = sql.unsafe(`"${table}"`);
    const cols = columns.map((c) => `"${c}"`).join(', ');
    const input = sql`
      jsonb_to_recordset(${rows}::text::jsonb) AS x(type text, partition int, key text, row jsonb)
      JOIN fence f ON f.type = x.type AND f.partition = x.partition`;
    return sql`
      , ${sql.unsafe(`view_up_${i}`)} AS (
        INSERT INTO ${t} (key, ${sql.unsafe(cols)})
        SELECT x.key, ${sql.unsafe(columns.map((c) => `r."${c}"`).join(', '))}
        FROM ${input} CROSS JOIN LATERAL jsonb_populate_record(NULL::${t}, x.row) r
        WHERE x.row IS NOT NULL
        ON CONFLICT (key) DO UPDATE SET (${sql.unsafe(cols)}) = ROW(${sql.unsafe(columns.map((c) => `EXCLUDED."${c}"`).join(', '))})
        RETURNING 1
      )${
        deletes
          ? sql`, ${sql.unsafe(`view_del_${i}`)} AS (
        DELETE FROM ${t} WHERE ctid = ANY (ARRAY(
          SELECT v.ctid FROM ${input} CROSS JOIN LATERAL (SELECT ctid FROM ${t} WHERE key = x.key LIMIT 1) v
          WHERE x.row IS NULL))
        RETURNING 1
      )`
          : sql``
      }`;
  });
  return sql`${ctes}`;
}
