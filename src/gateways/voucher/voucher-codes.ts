import type { Sql } from '../../store/db.js';
import { candidateCode } from '../../common/voucher-code.js';

/** Candidates tried before giving up: with 900 million codes, the 20th is never needed. */
const MAX_ATTEMPTS = 20;

/**
 * The short numeric code of each voucher (voucher-code.ts): unique, and one per voucher. A code
 * is assigned when the voucher is issued, or when it is first read without one (a gateway that
 * stopped between the voucher's commit and its code; vouchers from before codes got theirs by
 * migration 016). In PostgreSQL ({@link PgVoucherCodes}), or memory in the product tier.
 */
export interface VoucherCodes {
  /** The voucher's code, assigned now if it has none. */
  codeFor(voucherId: string): Promise<string>;
  /** Codes of several vouchers (a page of a list), assigning the missing ones. */
  codesFor(voucherIds: readonly string[]): Promise<Map<string, string>>;
  /** The voucher a code names, if any. */
  voucherOf(code: string): Promise<string | undefined>;
}

/** Voucher codes in `voucher_codes`. */
export class PgVoucherCodes implements VoucherCodes {
  constructor(private readonly sql: Sql) {}

  /** The voucher's code, assigned now if it has none. */
  async codeFor(voucherId: string): Promise<string> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const code = candidateCode(voucherId, attempt);
      const [row] = await this.sql<Array<{ code: string }>>`
        WITH added AS (
          INSERT INTO voucher_codes (code, voucher_id) VALUES (${code}, ${voucherId})
          ON CONFLICT DO NOTHING
          RETURNING code
        )
        SELECT code FROM added
        UNION ALL
        SELECT code FROM voucher_codes WHERE voucher_id = ${voucherId}
        LIMIT 1`;
      if (row) return row.code;
      // The candidate is another voucher's: the next one.
    }
    throw new Error(`no free voucher code for ${voucherId} in ${MAX_ATTEMPTS} attempts`);
  }

  /** Codes of several vouchers (a page of a list), assigning the missing ones. */
  async codesFor(voucherIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.sql<Array<{ code: string; voucher_id: string }>>`
      SELECT code, voucher_id FROM voucher_codes WHERE voucher_id = ANY(${voucherIds as string[]})`;
    const codes = new Map(rows.map((r) => [r.voucher_id, r.code]));
    for (const id of voucherIds) if (!codes.has(id)) codes.set(id, await this.codeFor(id));
    return codes;
  }

  /** The voucher a code names, if any. */
  async voucherOf(code: string): Promise<string | undefined> {
    const [row] = await this.sql<Array<{ voucher_id: string }>>`
      SELECT voucher_id FROM voucher_codes WHERE code = ${code}`;
    return row?.voucher_id;
  }
}

/** Voucher codes in memory, for the product tier's tests: the same candidates, in the same order. */
export class MemoryVoucherCodes implements VoucherCodes {
  private readonly byCode = new Map<string, string>();
  private readonly byVoucher = new Map<string, string>();

  codeFor(voucherId: string): Promise<string> {
    const known = this.byVoucher.get(voucherId);
    if (known) return Promise.resolve(known);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const code = candidateCode(voucherId, attempt);
      if (this.byCode.has(code)) continue;
      this.byCode.set(code, voucherId);
      this.byVoucher.set(voucherId, code);
      return Promise.resolve(code);
    }
    return Promise.reject(new Error(`no free voucher code for ${voucherId} in ${MAX_ATTEMPTS} attempts`));
  }

  async codesFor(voucherIds: readonly string[]): Promise<Map<string, string>> {
    const codes = new Map<string, string>();
    for (const id of voucherIds) codes.set(id, await this.codeFor(id));
    return codes;
  }

  voucherOf(code: string): Promise<string | undefined> {
    return Promise.resolve(this.byCode.get(code));
  }
}
