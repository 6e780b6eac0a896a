import type { Redemption, VoucherState } from '../actors/voucher/messages.js';
import type { Sql } from './db.js';

export interface VoucherFilter {
  recipientDid?: string;
  emissionCertificateId?: string;
  status?: 'active' | 'redeemed' | 'expired' | 'revoked';
}

/**
 * Reads of vouchers straight from their snapshots: vouchers commit before they reply, so a
 * client reads its own writes without a round trip through the actor.
 */
export class VoucherReads {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<VoucherState | undefined> {
    const [row] = await this.sql<{ state: VoucherState }[]>`
      SELECT state FROM actor_snapshots WHERE type = 'voucher' AND key = ${id}`;
    return row?.state ?? undefined;
  }

  /** The voucher holding a redemption, and the redemption. */
  async findRedemption(redemptionId: string): Promise<{ voucher: VoucherState; redemption: Redemption } | undefined> {
    const [row] = await this.sql<{ state: VoucherState }[]>`
      SELECT state FROM actor_snapshots
      WHERE type = 'voucher' AND state -> 'redemptions' @> ${this.sql.json([{ id: redemptionId }])}`;
    const redemption = row?.state.redemptions.find((r) => r.id === redemptionId);
    return row && redemption ? { voucher: row.state, redemption } : undefined;
  }

  async list(
    f: VoucherFilter,
    today: string,
    limit: number,
    offset: number,
  ): Promise<{ items: VoucherState[]; total: number }> {
    const sql = this.sql;
    const expiry = sql`(state -> 'attributes' ->> 'expiryDate')`;
    const status =
      f.status === 'expired'
        ? sql`AND state ->> 'status' = 'active' AND ${expiry} < ${today}`
        : f.status === 'active'
          ? sql`AND state ->> 'status' = 'active' AND ${expiry} >= ${today}`
          : f.status
            ? sql`AND state ->> 'status' = ${f.status}`
            : sql``;
    const rows = await sql<{ state: VoucherState; total: string }[]>`
      SELECT state, count(*) OVER () AS total FROM actor_snapshots
      WHERE type = 'voucher'
        ${f.recipientDid ? sql`AND state ->> 'recipientDid' = ${f.recipientDid}` : sql``}
        ${f.emissionCertificateId ? sql`AND state ->> 'emissionCertificateId' = ${f.emissionCertificateId}` : sql``}
        ${status}
      ORDER BY state ->> 'createdAt' DESC, key
      LIMIT ${limit} OFFSET ${offset}`;
    return { items: rows.map((r) => r.state), total: rows[0] ? Number(rows[0].total) : 0 };
  }
}
