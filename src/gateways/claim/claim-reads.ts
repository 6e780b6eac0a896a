import type { ClaimState } from '../../actors/claim/messages.js';
import type { Sql } from '../../store/db.js';
import type { MemorySnapshotStore } from '../../store/memory-snapshot-store.js';
import { paged } from '../../store/paged.js';
import { newestViewRows } from '../../store/memory-view-rows.js';

type ClaimFilter = { supplierDid?: string; voucherId?: string };

/**
 * Claims from their read model, claim_views (claims commit before they reply, so a client reads
 * its own writes): in PostgreSQL, or in the memory store of the product tier.
 */
export interface ClaimReads {
  get(id: string): Promise<ClaimState | undefined>;
  /** Newest first. */
  list(f: ClaimFilter, limit: number, offset: number): Promise<{ items: ClaimState[]; total: number }>;
}

export class PgClaimReads implements ClaimReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<ClaimState | undefined> {
    const [row] = await this.sql<{ doc: ClaimState }[]>`SELECT doc FROM claim_views WHERE claim_id = ${id}`;
    return row?.doc;
  }

  async list(f: ClaimFilter, limit: number, offset: number): Promise<{ items: ClaimState[]; total: number }> {
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

/** Claims from the claim_views rows of the product tier's memory store. */
export class MemoryClaimReads implements ClaimReads {
  constructor(private readonly store: MemorySnapshotStore) {}

  get(id: string): Promise<ClaimState | undefined> {
    const row = [...(this.store.views.get('claim_views')?.values() ?? [])].find((r) => r.claim_id === id);
    return Promise.resolve(row ? structuredClone(row.doc as ClaimState) : undefined);
  }

  list(f: ClaimFilter, limit: number, offset: number): Promise<{ items: ClaimState[]; total: number }> {
    const matching = newestViewRows(
      this.store,
      'claim_views',
      (r) => (!f.supplierDid || r.supplier_did === f.supplierDid) && (!f.voucherId || r.voucher_id === f.voucherId),
    );
    const items = matching.slice(offset, offset + limit).map(([, r]) => structuredClone(r.doc as ClaimState));
    return Promise.resolve({ items, total: matching.length });
  }
}
