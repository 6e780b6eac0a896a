import type { ClaimState } from '../../actors/claim/claim.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** Claims straight from their snapshots (claims commit before they reply). */
export class ClaimReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<ClaimState | undefined> {
    const [row] = await this.sql<{ state: ClaimState }[]>`
      SELECT state FROM actor_snapshots WHERE type = 'claim' AND claim_id = ${id}`;
    return row?.state;
  }

  async list(
    f: { supplierDid?: string; voucherId?: string },
    limit: number,
    offset: number,
  ): Promise<{ items: ClaimState[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ state: ClaimState; total: string }[]>`
      SELECT state, count(*) OVER () AS total FROM actor_snapshots
      WHERE type = 'claim'
        ${f.supplierDid ? sql`AND state ->> 'supplierDid' = ${f.supplierDid}` : sql``}
        ${f.voucherId ? sql`AND state ->> 'voucherId' = ${f.voucherId}` : sql``}
      ORDER BY state ->> 'createdAt' DESC, key
      LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.state), total };
  }
}
