import type { Sql } from '../db.js';
import { TtlCache } from '../../ttl-cache.js';
import type { RegistryChanges } from './registry-changes.js';

/**
 * How long a cached record is kept while changes are heard (registry-changes.ts): a change
 * announced drops it at once, so this only bounds a change whose announcement was lost.
 */
export const HEARD_CACHE_MS = 30_000;

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
  private readonly cache: TtlCache<string, { record: T | undefined; at: number }>;
  /** Counts the changes heard: a read that began before one must not be cached after it. */
  private generation = 0;

  constructor(
    private readonly sql: Sql,
    private readonly spec: RegistryTable<T>,
    /**
     * How long `get` may answer from memory, ms (0: never). Hot paths read suppliers, products
     * and certificates on every redemption; a change made through another gateway shows after
     * this, or at once while `changes` are heard (then a copy is kept up to HEARD_CACHE_MS).
     */
    private readonly cacheMs = 0,
    /** Milliseconds now, for the cache (hearth's clock, so a test can move it). */
    private readonly now: () => number = Date.now,
    /** The gateways' announcements of changed records: without them, copies last `cacheMs`. */
    private readonly changes?: RegistryChanges,
  ) {
    // Sized for a programme's certificates (one per voucher), each read on every redemption.
    this.cache = new TtlCache({
      ttlMs: changes ? Math.max(cacheMs, HEARD_CACHE_MS) : cacheMs,
      maxEntries: 50_000,
      now,
    });
    changes?.watch(spec.table, (id) => this.forgetHere(id));
  }

  /** Whether a copy read at `at` may still answer: longer while changes are heard. */
  private fresh(at: number): boolean {
    return this.now() - at < (this.changes?.hearing ? Math.max(this.cacheMs, HEARD_CACHE_MS) : this.cacheMs);
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
    const id = String(record[this.spec.idField]);
    this.forgetHere(id);
    const [created] = await this.unique(
      this.sql<Row[]>`
        INSERT INTO ${this.sql(this.spec.table)} ${this.sql(row)}
        ON CONFLICT (${this.sql(this.idColumn)}) DO NOTHING RETURNING *`,
    );
    // Dropped again (a read during the insert may have cached "none"), and elsewhere: another
    // gateway may hold "no such record" for this id.
    this.forgetHere(id);
    if (created) await this.changes?.announce(this.spec.table, id);
    return created ? this.fromRow(created) : undefined;
  }

  async get(id: string): Promise<T | undefined> {
    if (this.cacheMs > 0) {
      const hit = this.cache.get(id);
      if (hit && this.fresh(hit.at)) return hit.record;
      const generation = this.generation;
      const at = this.now();
      const record = await this.read(id);
      if (generation === this.generation) this.cache.set(id, { record, at });
      return record;
    }
    return this.read(id);
  }

  /** Drops this process's copies (all of them without an id); a read in flight is not cached after it. */
  private forgetHere(id?: string): void {
    this.generation++;
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }

  private async read(id: string): Promise<T | undefined> {
    const [row] = await this.sql<Row[]>`
      SELECT * FROM ${this.sql(this.spec.table)} WHERE ${this.sql(this.idColumn)} = ${id}`;
    return row ? this.fromRow(row) : undefined;
  }

  async update(id: string, patch: Partial<T>): Promise<T | undefined> {
    this.forgetHere(id);
    const row = { ...this.toRow(patch), updated_at: new Date() };
    const [updated] = await this.unique(
      this.sql<Row[]>`
        UPDATE ${this.sql(this.spec.table)} SET ${this.sql(row)}
        WHERE ${this.sql(this.idColumn)} = ${id} RETURNING *`,
    );
    // Dropped here again: a read that began during the update may have cached the old record.
    this.forgetHere(id);
    if (updated) await this.changes?.announce(this.spec.table, id);
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
