import type { Redemption, VoucherState } from '../../actors/voucher/messages.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';
import { redeemFact } from '../../actors/voucher/logic.js';
import { redemptionIdFor } from '../../actors/voucher/redemption-id.js';

export interface VoucherFilter {
  recipientDid?: string;
  emissionCertificateId?: string;
  status?: 'active' | 'redeemed' | 'expired' | 'revoked';
}

/**
 * Reads of vouchers, without a round trip through their actors: the voucher actor writes its
 * snapshot, its records and its read model row in the commit that answers, and commits before it
 * replies, so a client reads its own writes. From PostgreSQL ({@link PgVoucherReads}), or from
 * the memory store in the product tier (`memory-voucher-reads.ts`).
 */
export interface VoucherReads {
  get(id: string): Promise<VoucherState | undefined>;
  /** The voucher holding a redemption, and the redemption. */
  findRedemption(redemptionId: string): Promise<{ voucher: VoucherState; redemption: Redemption } | undefined>;
  /** The redemption that answered a request on a voucher (a retry after a timeout), if it was applied. */
  redemptionByRequest(voucherId: string, requestId: string): Promise<Redemption | undefined>;
  /** A voucher's redemptions in the order they were made (optionally one supplier's). */
  redemptions(
    voucherId: string,
    supplierDid: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: Redemption[]; total: number }>;
  /** Newest first; `today` (UTC) tells an active voucher from an expired one. */
  list(
    f: VoucherFilter,
    today: string,
    limit: number,
    offset: number,
  ): Promise<{ items: VoucherState[]; total: number }>;
}

/**
 * Reads of vouchers in PostgreSQL: filtered and sorted by their read model (voucher_views), each
 * voucher's document taken from its snapshot, which is the voucher (voucher/messages.ts,
 * VoucherState; the read model kept a copy of it until migration 028, written twice per
 * redemption).
 */
export class PgVoucherReads implements VoucherReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<VoucherState | undefined> {
    const [row] = await this.sql<{ doc: VoucherState }[]>`
      SELECT state AS doc FROM actor_snapshots WHERE type = 'voucher' AND key = ${id} AND state <> 'null'`;
    return row?.doc ?? undefined;
  }

  /** The voucher holding a redemption, and the redemption. */
  async findRedemption(redemptionId: string): Promise<{ voucher: VoucherState; redemption: Redemption } | undefined> {
    const [row] = await this.sql<{ doc: VoucherState; body: Redemption }[]>`
      SELECT s.state AS doc, r.body FROM actor_records r
      JOIN actor_snapshots s ON s.type = 'voucher' AND s.key = r.actor_key
      WHERE r.actor_type = 'voucher' AND r.kind = 'redemption' AND r.record_id = ${redemptionId}`;
    return row ? { voucher: row.doc, redemption: row.body } : undefined;
  }

  /**
   * The redemption that answered a request on a voucher (a retry after a timeout), if it was
   * applied: its record, whose id the voucher and the request name (voucher/redemption-id.ts), or,
   * for one made before ids were derived so, the fact its voucher kept of the request (found on
   * any voucher). A key reused on another voucher with a newer redemption is not found here: the
   * idempotency record of its first answer refuses it (409 IDEMPOTENCY_KEY_REUSED, a different
   * body), as it does every reuse.
   */
  async redemptionByRequest(voucherId: string, requestId: string): Promise<Redemption | undefined> {
    // Both probes in one statement (one round trip on every keyed first try), the record first.
    const [row] = await this.sql<{ body: Redemption }[]>`
      SELECT body FROM (
        SELECT 0 AS rank, body FROM actor_records
        WHERE actor_type = 'voucher' AND kind = 'redemption' AND record_id = ${redemptionIdFor(voucherId, requestId)}
        UNION ALL
        SELECT 1, body FROM (
          SELECT body FROM actor_facts WHERE type = 'voucher' AND id = ${redeemFact(requestId)} LIMIT 1) older
      ) found
      ORDER BY rank LIMIT 1`;
    return row?.body;
  }

  /** A voucher's redemptions in the order they were made (optionally one supplier's). */
  async redemptions(
    voucherId: string,
    supplierDid: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: Redemption[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ body: Redemption; total: string }[]>`
      SELECT body, count(*) OVER () AS total FROM actor_records
      WHERE actor_type = 'voucher' AND actor_key = ${voucherId} AND kind = 'redemption'
        ${supplierDid ? sql`AND body ->> 'supplierDid' = ${supplierDid}` : sql``}
      ORDER BY split_part(msg_id, '-', 1)::numeric, split_part(msg_id, '-', 2)::numeric, record_id
      LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.body), total };
  }

  async list(
    f: VoucherFilter,
    today: string,
    limit: number,
    offset: number,
  ): Promise<{ items: VoucherState[]; total: number }> {
    const sql = this.sql;
    const status =
      f.status === 'expired'
        ? sql`AND status = 'active' AND expiry_date < ${today}`
        : f.status === 'active'
          ? sql`AND status = 'active' AND expiry_date >= ${today}`
          : f.status
            ? sql`AND status = ${f.status}`
            : sql``;
    const { rows, total } = await paged(
      (lim, off) => sql<{ doc: VoucherState; total: string }[]>`
      SELECT s.state AS doc, count(*) OVER () AS total FROM voucher_views v
      JOIN actor_snapshots s ON s.type = 'voucher' AND s.key = v.key
      WHERE true
        ${f.recipientDid ? sql`AND recipient_did = ${f.recipientDid}` : sql``}
        ${f.emissionCertificateId ? sql`AND certificate_id = ${f.emissionCertificateId}` : sql``}
        ${status}
      ORDER BY created_at DESC, v.key
      LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }
}
