import type { ClaimState } from '../actors/claim/claim.js';
import type { Sql } from './db.js';

/** Claims straight from their snapshots (claims commit before they reply). */
export class ClaimReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<ClaimState | undefined> {
    const [row] = await this.sql<{ state: ClaimState }[]>`
      SELECT state FROM actor_snapshots WHERE type = 'claim' AND state ->> 'id' = ${id}`;
    return row?.state;
  }

  async list(
    f: { supplierDid?: string; voucherId?: string },
    limit: number,
    offset: number,
  ): Promise<{ items: ClaimState[]; total: number }> {
    const sql = this.sql;
    const rows = await sql<{ state: ClaimState; total: string }[]>`
      SELECT state, count(*) OVER () AS total FROM actor_snapshots
      WHERE type = 'claim'
        ${f.supplierDid ? sql`AND state ->> 'supplierDid' = ${f.supplierDid}` : sql``}
        ${f.voucherId ? sql`AND state ->> 'voucherId' = ${f.voucherId}` : sql``}
      ORDER BY state ->> 'createdAt' DESC, key
      LIMIT ${limit} OFFSET ${offset}`;
    return { items: rows.map((r) => r.state), total: rows[0] ? Number(rows[0].total) : 0 };
  }
}
