/**
 * One registry table (households, suppliers, products, certificates): rows map to API records
 * by a field → column table, so the four registries share one small store.
 */
export interface RegistryTable<T extends object> {
  table: string;
  /** The API field that identifies a record, and its column. */
  idField: keyof T & string;
  /** API field → column; jsonb columns take objects as they are. */
  columns: { [K in keyof T]-?: string };
  /** Columns holding decimals that the driver returns as strings. */
  numeric?: ReadonlyArray<keyof T & string>;
  /** Fields no two records may share (besides the id), as the table's UNIQUE columns say. */
  unique?: ReadonlyArray<keyof T & string>;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** Another record already holds a value that must be unique (a phone number, say). */
export class DuplicateValueError extends Error {
  constructor(readonly field: string) {
    super(`another record already has this ${field}`);
  }
}

/**
 * Where a registry's records are kept: its table in PostgreSQL (`pg-registry-rows.ts`), or memory
 * for the product tier's tests (`memory-registry-rows.ts`). Records come back with `createdAt`
 * and `updatedAt`; lists are newest first.
 */
export interface RegistryRows<T extends object> {
  readonly table: string;
  /** A record's id (its `idField`). */
  idOf(record: T): string;
  /**
   * Inserts; resolves to undefined when the id is taken, throws {@link DuplicateValueError} when
   * another unique value is (only the id's conflict is the "already exists" answer).
   */
  insert(record: T): Promise<T | undefined>;
  select(id: string): Promise<T | undefined>;
  /** Undefined when there is no such record; {@link DuplicateValueError} as for `insert`. */
  update(id: string, patch: Partial<T>): Promise<T | undefined>;
  page(limit: number, offset: number): Promise<Page<T>>;
}
