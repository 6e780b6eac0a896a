import type { ClaimState } from '../../actors/claim/messages.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** Claims from their read model, claim_views (claims commit before they reply). */
export class ClaimReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<ClaimState | undefined> {
    const [row] = await this.sql<{ doc: ClaimState }[]>`SELECT doc FROM claim_views WHERE claim_id = ${id}`;
    return row?.doc;
  }

  async list(
    f: { supplierDid?: string; voucherId?: string },
    limit: number,
    offset: number,
  ): Promise<{ items: ClaimState[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ doc: ClaimState; total: string }[]>`
      SELECT doc, count(*) OVER () AS total FROM claim_views
      WHERE true
        ${f.supplierDid ? sql`AND supplier_did = ${f.supplierDid}` : sql``}
        ${f.voucherId ? sql`AND voucher_id = ${f.voucherId}` : sql``}
      ORDER BY created_at DESC, key
      LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }
}
