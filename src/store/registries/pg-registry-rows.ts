import type { Sql } from '../db.js';
import { DuplicateValueError, type Page, type RegistryRows, type RegistryTable } from './registry-rows.js';

type Row = Record<string, unknown>;

/** A registry's records in its PostgreSQL table (migration 003). */
export function pgRegistryRows<T extends object>(sql: Sql, spec: RegistryTable<T>): RegistryRows<T> {
  const idColumn: string = spec.columns[spec.idField];
  const toRow = (record: Partial<T>): Row => {
    const row: Row = {};
    for (const [field, column] of Object.entries(spec.columns) as Array<[keyof T, string]>) {
      if (record[field] !== undefined) row[column] = record[field];
    }
    return row;
  };
  const fromRow = (row: Row): T => {
    const out: Record<string, unknown> = {};
    for (const [field, column] of Object.entries<string>(spec.columns)) {
      const v = row[column];
      if (v === null || v === undefined) continue;
      out[field] = spec.numeric?.includes(field as keyof T & string) ? Number(v) : v;
    }
    out.createdAt = (row.created_at as Date).toISOString();
    out.updatedAt = (row.updated_at as Date).toISOString();
    return out as T;
  };
  /** A unique violation (SQLSTATE 23505) becomes a {@link DuplicateValueError} naming the API field. */
  const unique = async <R>(query: Promise<R>): Promise<R> => {
    try {
      return await query;
    } catch (err) {
      const e = err as { code?: unknown; detail?: unknown };
      if (e.code !== '23505') throw err;
      // detail: `Key (phone_number)=(+260…) already exists.`
      const column = typeof e.detail === 'string' ? /^Key \(([a-z_]+)\)/.exec(e.detail)?.[1] : undefined;
      const field = Object.entries<string>(spec.columns).find(([, c]) => c === column)?.[0];
      throw new DuplicateValueError(field ?? column ?? 'value');
    }
  };
  const count = async (): Promise<number> => {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(spec.table)}`;
    return row?.n ?? 0;
  };
  return {
    table: spec.table,
    idOf: (record) => String(record[spec.idField]),
    async insert(record) {
      const [created] = await unique(
        sql<Row[]>`
          INSERT INTO ${sql(spec.table)} ${sql(toRow(record))}
          ON CONFLICT (${sql(idColumn)}) DO NOTHING RETURNING *`,
      );
      return created ? fromRow(created) : undefined;
    },
    async select(id) {
      const [row] = await sql<Row[]>`SELECT * FROM ${sql(spec.table)} WHERE ${sql(idColumn)} = ${id}`;
      return row ? fromRow(row) : undefined;
    },
    async update(id, patch) {
      const row = { ...toRow(patch), updated_at: new Date() };
      const [updated] = await unique(
        sql<Row[]>`UPDATE ${sql(spec.table)} SET ${sql(row)} WHERE ${sql(idColumn)} = ${id} RETURNING *`,
      );
      return updated ? fromRow(updated) : undefined;
    },
    async page(limit, offset): Promise<Page<T>> {
      const rows = await sql<Row[]>`
        SELECT *, count(*) OVER () AS total FROM ${sql(spec.table)}
        ORDER BY created_at DESC, ${sql(idColumn)} LIMIT ${limit} OFFSET ${offset}`;
      const total = rows[0] ? Number(rows[0].total) : await count();
      return { items: rows.map(fromRow), total, limit, offset };
    },
  };
}
