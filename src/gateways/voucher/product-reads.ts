import type { Sql } from '../../store/db.js';

/**
 * The most products a USSD menu can offer: choices 1–97, since 98 is "more" on a paged screen
 * (and 0 and 00 navigate).
 */
const MENU_PRODUCTS = 97;

/**
 * The approved products a supplier may redeem for, by name: every one of them, not the newest
 * page of the registry (an older approved product must stay choosable).
 */
export async function approvedProducts(
  sql: Sql,
  /** Only these (a monitoring plan's products); all approved ones when absent. */
  among?: readonly string[],
  limit = MENU_PRODUCTS,
): Promise<Array<{ id: string; name: string }>> {
  const rows = among
    ? await sql<Array<{ id: string; name: string }>>`
        SELECT id, name FROM products WHERE approved AND id = ANY(${sql.array([...among])}::text[])
        ORDER BY name, id LIMIT ${limit}`
    : await sql<Array<{ id: string; name: string }>>`
        SELECT id, name FROM products WHERE approved ORDER BY name, id LIMIT ${limit}`;
  return rows.map(({ id, name }) => ({ id, name }));
}
