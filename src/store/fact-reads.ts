import type { Sql } from './db.js';

/**
 * A fact found by its id alone (actor_facts' key leads with it): the actor that holds it and its
 * body, or undefined. For ids unique across a type's actors (an ITMO claim's, say); the read sees
 * what was committed, as a read model does.
 */
export async function factHolder<T>(sql: Sql, type: string, id: string): Promise<{ key: string; body: T } | undefined> {
  const [row] = await sql<{ key: string; body: T }[]>`
    SELECT key, body FROM actor_facts WHERE type = ${type} AND id = ${id} LIMIT 1`;
  return row;
}
