import { withTallies, type AccountView } from '../../actors/account/index.js';
import { itmoCertificateFact, itmoClaimFact } from '../../actors/account/facts.js';
import type { ItmoCertificate, ItmoClaim } from '../../actors/account/itmo.js';
import { factHolder } from '../../store/fact-reads.js';
import type { ConversionState } from '../../actors/conversion/index.js';
import type { OrderState } from '../../actors/order/index.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** A pool as its read model holds it: the reserves and the fee, in micro-units. */
export interface PoolRow {
  assets: [string, string];
  reserves: Record<string, string>;
  feeBps: number;
}

/**
 * Conversions, accounts and pools from their read models (018_conversion_views.sql), written in
 * the same statement as each actor's snapshot: a read sees exactly what was committed.
 */
export class ConversionReads {
  constructor(private readonly sql: Sql) {}

  async conversion(id: string): Promise<ConversionState | undefined> {
    const [row] = await this.sql<{ doc: ConversionState }[]>`SELECT doc FROM conversion_views WHERE key = ${id}`;
    return row?.doc;
  }

  async conversions(
    account: string,
    limit: number,
    offset: number,
  ): Promise<{ items: ConversionState[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ doc: ConversionState; total: string }[]>`
        SELECT doc, count(*) OVER () AS total FROM conversion_views WHERE account = ${account}
        ORDER BY created_at DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }

  async order(id: string, kind: OrderState['kind']): Promise<OrderState | undefined> {
    const [row] = await this.sql<{ doc: OrderState }[]>`
      SELECT doc FROM order_views WHERE key = ${id} AND kind = ${kind}`;
    return row?.doc;
  }

  async orders(
    account: string,
    kind: OrderState['kind'],
    limit: number,
    offset: number,
  ): Promise<{ items: OrderState[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ doc: OrderState; total: string }[]>`
        SELECT doc, count(*) OVER () AS total FROM order_views WHERE account = ${account} AND kind = ${kind}
        ORDER BY created_at DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }

  /** An ITMO claim, with the account that holds it (a fact of that account). */
  async itmoClaim(id: string): Promise<{ did: string; claim: ItmoClaim } | undefined> {
    const found = await factHolder<ItmoClaim>(this.sql, 'account', itmoClaimFact(id));
    return found && { did: found.key, claim: found.body };
  }

  /** An ITMO certificate, with the account that holds it (a fact of that account). */
  async itmoCertificate(id: string): Promise<{ did: string; certificate: ItmoCertificate } | undefined> {
    const found = await factHolder<ItmoCertificate>(this.sql, 'account', itmoCertificateFact(id));
    return found && { did: found.key, certificate: found.body };
  }

  /**
   * An account's balances: its read model row (none for an account no step has changed) with
   * its pending tallies added, which redemptions write in their own commits. One statement, so
   * the two are read at one snapshot.
   */
  async account(did: string): Promise<AccountView> {
    const [row] = await this.sql<{ doc: AccountView | null; tallies: Record<string, string> | null }[]>`
      SELECT (SELECT doc FROM account_views WHERE key = ${did}) AS doc,
             (SELECT json_object_agg(name, amount) FROM (
                SELECT name, sum(amount)::text AS amount FROM actor_tallies
                WHERE type = 'account' AND key = ${did} GROUP BY name) t) AS tallies`;
    return withTallies(row?.doc ?? { balances: {} }, row?.tallies ?? {});
  }

  async pool(id: string): Promise<PoolRow | undefined> {
    const [row] = await this.sql<{ doc: PoolRow }[]>`SELECT doc FROM pool_views WHERE key = ${id}`;
    return row?.doc;
  }
}
