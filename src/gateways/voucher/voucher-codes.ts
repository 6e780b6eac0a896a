import type { Sql } from '../../store/db.js';
import { candidateCode } from '../../common/voucher-code.js';

/** Candidates tried before giving up: with 900 million codes, the 20th is never needed. */
const MAX_ATTEMPTS = 20;

/**
 * The short numeric code of each voucher (voucher-code.ts), in `voucher_codes`: unique, and one
 * per voucher. A code is assigned when the voucher is issued, or when it is first read without
 * one (a gateway that stopped between the voucher's commit and its code; vouchers from before
 * codes got theirs by migration 016).
 */
export class VoucherCodes {
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
