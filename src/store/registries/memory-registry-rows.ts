import { DuplicateValueError, type Page, type RegistryRows, type RegistryTable } from './registry-rows.js';

type Stored<T> = T & { createdAt: string; updatedAt: string };

/**
 * A registry's records in memory, with its table's rules (the id and the UNIQUE fields), for
 * the product tier's tests; passes the same suite as the PostgreSQL table
 * (test/support/registry-rows-suite.ts). Not for deployments: nothing survives the process.
 */
export function memoryRegistryRows<T extends object>(
  spec: RegistryTable<T>,
  now: () => number = Date.now,
): RegistryRows<T> {
  const rows = new Map<string, Stored<T>>();
  /** Insertion order: what tells two records made in one millisecond apart (PostgreSQL's clock has microseconds). */
  const order = new Map<string, number>();
  const copy = (r: Stored<T>): T => structuredClone(r);
  const clash = (record: Partial<T>, except?: string): void => {
    for (const field of spec.unique ?? []) {
      const value = record[field];
      if (value === undefined) continue;
      for (const [id, other] of rows) if (id !== except && other[field] === value) throw new DuplicateValueError(field);
    }
  };
  /** The fields the table has columns for, given ones only: what a row would keep. */
  const defined = (patch: Partial<T>): Partial<T> =>
    Object.fromEntries(
      Object.entries(patch).filter(([field, v]) => v !== undefined && field in spec.columns),
    ) as Partial<T>;
  return {
    table: spec.table,
    idOf: (record) => String(record[spec.idField]),
    insert(record) {
      const id = String(record[spec.idField]);
      if (rows.has(id)) return Promise.resolve(undefined);
      try {
        clash(record);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      const at = new Date(now()).toISOString();
      const stored = { ...structuredClone(defined(record)), createdAt: at, updatedAt: at } as Stored<T>;
      rows.set(id, stored);
      order.set(id, order.size);
      return Promise.resolve(copy(stored));
    },
    select(id) {
      const r = rows.get(id);
      return Promise.resolve(r ? copy(r) : undefined);
    },
    update(id, patch) {
      const r = rows.get(id);
      if (!r) return Promise.resolve(undefined);
      try {
        clash(patch, id);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      const next = { ...r, ...structuredClone(defined(patch)), updatedAt: new Date(now()).toISOString() };
      rows.set(id, next);
      return Promise.resolve(copy(next));
    },
    page(limit, offset): Promise<Page<T>> {
      // As the table's ORDER BY created_at DESC: newest first.
      const seq = (r: Stored<T>) => order.get(String(r[spec.idField])) ?? 0;
      const newestFirst = [...rows.values()].sort((a, b) =>
        a.createdAt === b.createdAt ? seq(b) - seq(a) : a.createdAt < b.createdAt ? 1 : -1,
      );
      return Promise.resolve({
        items: newestFirst.slice(offset, offset + limit).map(copy),
        total: rows.size,
        limit,
        offset,
      });
    },
  };
}
