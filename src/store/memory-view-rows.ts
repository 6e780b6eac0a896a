import type { MemorySnapshotStore } from './memory-snapshot-store.js';

type ViewRow = [key: string, row: Record<string, unknown>];

/**
 * A read model table of the memory store, newest first as the tables' `ORDER BY <at> DESC, key`
 * (`at` a time column, `created_at` unless named; a tie goes by key), keeping the rows `keep`
 * accepts: what a read of the product tier lists from.
 */
export function newestViewRows(
  store: MemorySnapshotStore,
  table: string,
  keep: (row: Record<string, unknown>) => boolean,
  at = 'created_at',
): ViewRow[] {
  const rows: ViewRow[] = [...(store.views.get(table) ?? new Map<string, Record<string, unknown>>())];
  return rows
    .filter(([, row]) => keep(row))
    .sort(([ka, a], [kb, b]) => {
      const [ta, tb] = [String(a[at]), String(b[at])];
      return ta === tb ? (ka < kb ? -1 : 1) : ta < tb ? 1 : -1;
    });
}
