import type { IdleRetirement } from '../actors/runtime/ports.js';
import type { Sql } from './db.js';

/**
 * One statement: the owned partitions whose epoch still holds are read FOR SHARE (as a commit
 * reads them, so a new owner's takeFence waits), and up to `limit` of their snapshots not written
 * since `idleBefore` are deleted, with their read model rows. A snapshot written while the
 * statement waited for its row lock is checked again and stays (PostgreSQL re-evaluates the
 * condition on the newest row version). Without an index on updated_at (one would make every
 * snapshot update a non-HOT one), this scans the type's rows: it runs every few minutes, not per
 * request.
 */
export async function retireIdle(sql: Sql, r: IdleRetirement): Promise<string[]> {
  if (r.owned.size === 0) return [];
  const owned = JSON.stringify([...r.owned].map(([partition, epoch]) => ({ partition, epoch })));
  const before = r.idleBefore.toISOString();
  const rows = await sql<{ key: string }[]>`
    WITH owned AS (
      SELECT * FROM jsonb_to_recordset(${owned}::text::jsonb) AS o(partition int, epoch bigint)
    ), fence AS (
      SELECT f.partition FROM partition_fences f
      JOIN owned o ON f.type = ${r.type} AND f.partition = o.partition AND f.epoch = o.epoch
      FOR SHARE OF f
    ), idle AS (
      SELECT key FROM actor_snapshots
      WHERE type = ${r.type} AND updated_at < ${before}
        AND hearth_partition(key, ${r.partitions}) IN (SELECT partition FROM fence)
      LIMIT ${r.limit}
    ), gone AS (
      DELETE FROM actor_snapshots s USING idle i
      WHERE s.type = ${r.type} AND s.key = i.key AND s.updated_at < ${before}
      RETURNING s.key
    ) ${r.viewTable ? sql`, view_gone AS (DELETE FROM ${sql.unsafe(`"${r.viewTable}"`)} v USING gone g WHERE v.key = g.key RETURNING 1)` : sql``}
    SELECT key FROM gone`;
  return rows.map((row) => row.key);
}
