import { TtlCache } from '../../ttl-cache.js';
import type { RegistryChanges } from './registry-changes.js';
import type { Page, RegistryRows } from './registry-rows.js';

export { DuplicateValueError, type Page, type RegistryTable } from './registry-rows.js';

/**
 * How long a cached record is kept while changes are heard (registry-changes.ts): a change
 * announced drops it at once, so this only bounds a change whose announcement was lost.
 */
export const HEARD_CACHE_MS = 30_000;

/**
 * A registry's records as the gateways read them: its rows (PostgreSQL, or memory in the product
 * tier), with copies of hot records kept while they cannot have changed unseen.
 */
export class Registry<T extends object> {
  private readonly cache: TtlCache<string, { record: T | undefined; at: number }>;
  /** Counts the changes heard: a read that began before one must not be cached after it. */
  private generation = 0;

  constructor(
    private readonly rows: RegistryRows<T>,
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
    changes?.watch(rows.table, (id) => this.forgetHere(id));
  }

  /** Whether a copy read at `at` may still answer: longer while changes are heard. */
  private fresh(at: number): boolean {
    return this.now() - at < (this.changes?.hearing ? Math.max(this.cacheMs, HEARD_CACHE_MS) : this.cacheMs);
  }

  /**
   * Inserts; resolves to undefined when the id is taken, throws {@link DuplicateValueError} when
   * another unique value is (only the id's conflict is the "already exists" answer).
   */
  async create(record: T): Promise<T | undefined> {
    const id = this.rows.idOf(record);
    this.forgetHere(id);
    const created = await this.rows.insert(record);
    // Dropped again (a read during the insert may have cached "none"), and elsewhere: another
    // gateway may hold "no such record" for this id.
    this.forgetHere(id);
    if (created) await this.changes?.announce(this.rows.table, id);
    return created;
  }

  async get(id: string): Promise<T | undefined> {
    if (this.cacheMs > 0) {
      const hit = this.cache.get(id);
      if (hit && this.fresh(hit.at)) return hit.record;
      const generation = this.generation;
      const at = this.now();
      const record = await this.rows.select(id);
      if (generation === this.generation) this.cache.set(id, { record, at });
      return record;
    }
    return this.rows.select(id);
  }

  /** Drops this process's copies (all of them without an id); a read in flight is not cached after it. */
  private forgetHere(id?: string): void {
    this.generation++;
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }

  async update(id: string, patch: Partial<T>): Promise<T | undefined> {
    this.forgetHere(id);
    const updated = await this.rows.update(id, patch);
    // Dropped here again: a read that began during the update may have cached the old record.
    this.forgetHere(id);
    if (updated) await this.changes?.announce(this.rows.table, id);
    return updated;
  }

  list(limit: number, offset: number): Promise<Page<T>> {
    return this.rows.page(limit, offset);
  }
}
