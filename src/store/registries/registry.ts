import type { Sql } from '../db.js';
import { TtlCache } from '../../ttl-cache.js';

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
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

type Row = Record<string, unknown>;

/** Another record already holds a value that must be unique (a phone number, say). */
export class DuplicateValueError extends Error {
  constructor(readonly field: string) {
    super(`another record already has this ${field}`);
  }
}

export class Registry<T extends object> {
  private readonly cache: TtlCache<string, { record: T | undefined }>;

  constructor(
    private readonly sql: Sql,
    private readonly spec: RegistryTable<T>,
    /**
     * How long `get` may answer from memory, ms (0: never). Hot paths read suppliers and
     * products on every redemption; a change made through another gateway shows after this.
     */
    private readonly cacheMs = 0,
    /** Milliseconds now, for the cache (hearth's clock, so a test can move it). */
    now: () => number = Date.now,
  ) {
    this.cache = new TtlCache({ ttlMs: cacheMs, maxEntries: 10_000, now });
  }

  private get idColumn(): string {
    return this.spec.columns[this.spec.idField];
  }

  private toRow(record: Partial<T>): Row {
    const row: Row = {};
    for (const [field, column] of Object.entries(this.spec.columns) as Array<[keyof T, string]>) {
      if (record[field] !== undefined) row[column] = record[field];
    }
    return row;
  }

  private fromRow(row: Row): T {
    const out: Record<string, unknown> = {};
    for (const [field, column] of Object.entries<string>(this.spec.columns)) {
      const v = row[column];
      if (v === null || v === undefined) continue;
      out[field] = this.spec.numeric?.includes(field as keyof T & string) ? Number(v) : v;
    }
    out.createdAt = (row.created_at as Date).toISOString();
    out.updatedAt = (row.updated_at as Date).toISOString();
    return out as T;
  }

  /**
   * Inserts; resolves to undefined when the id is taken, throws {@link DuplicateValueError} when
   * another unique value is (only the id's conflict is the "already exists" answer).
   */
  async create(record: T): Promise<T | undefined> {
    const row = this.toRow(record);
    this.cache.clear();
    const [created] = await this.unique(
      this.sql<Row[]>`
        INSERT INTO ${this.sql(this.spec.table)} ${this.sql(row)}
        ON CONFLICT (${this.sql(this.idColumn)}) DO NOTHING RETURNING *`,
    );
    return created ? this.fromRow(created) : undefined;
  }

  async get(id: string): Promise<T | undefined> {
    if (this.cacheMs > 0) {
      const hit = this.cache.get(id);
      if (hit) return hit.record;
      const record = await this.read(id);
      this.cache.set(id, { record });
      return record;
    }
    return this.read(id);
  }

  private async read(id: string): Promise<T | undefined> {
    const [row] = await this.sql<Row[]>`
      SELECT * FROM ${this.sql(this.spec.table)} WHERE ${this.sql(this.idColumn)} = ${id}`;
    return row ? this.fromRow(row) : undefined;
  }

  async update(id: string, patch: Partial<T>): Promise<T | undefined> {
    this.cache.delete(id);
    const row = { ...this.toRow(patch), updated_at: new Date() };
    const [updated] = await this.unique(
      this.sql<Row[]>`
        UPDATE ${this.sql(this.spec.table)} SET ${this.sql(row)}
        WHERE ${this.sql(this.idColumn)} = ${id} RETURNING *`,
    );
    return updated ? this.fromRow(updated) : undefined;
  }

  /** A unique violation (SQLSTATE 23505) becomes a {@link DuplicateValueError} naming the API field. */
  private async unique<R>(query: Promise<R>): Promise<R> {
    try {
      return await query;
    } catch (err) {
      const e = err as { code?: unknown; detail?: unknown };
      if (e.code !== '23505') throw err;
      // detail: `Key (phone_number)=(+260…) already exists.`
      const column = typeof e.detail === 'string' ? /^Key \(([a-z_]+)\)/.exec(e.detail)?.[1] : undefined;
      const field = Object.entries<string>(this.spec.columns).find(([, c]) => c === column)?.[0];
      throw new DuplicateValueError(field ?? column ?? 'value');
    }
  }

  async list(limit: number, offset: number): Promise<Page<T>> {
    const rows = await this.sql<Row[]>`
      SELECT *, count(*) OVER () AS total FROM ${this.sql(this.spec.table)}
      ORDER BY created_at DESC, ${this.sql(this.idColumn)} LIMIT ${limit} OFFSET ${offset}`;
    const total = rows[0] ? Number(rows[0].total) : await this.count();
    return { items: rows.map((r) => this.fromRow(r)), total, limit, offset };
  }

  private async count(): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${this.sql(this.spec.table)}`;
    return row?.n ?? 0;
  }
}
