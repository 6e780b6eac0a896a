/**
 * A bounded in-memory cache whose entries lapse after a time: the one cache of hearth's
 * look-ups (API keys, registries, revocations, DID documents, phones), where each used to be a
 * `Map` cleared whole at a size with `Date.now()` read inline.
 *
 * - Entries lapse `ttlMs` after they were set (Infinity: only the size bound removes them); one
 *   entry may carry its own lifetime.
 * - Full, it drops its oldest entry, not everything (a busy gateway does not lose its whole
 *   cache at once).
 * - The clock is injected, so a test moves time instead of sleeping.
 */
export interface TtlCacheOptions {
  /** How long an entry lives, ms. Default: for ever (the size bound alone). */
  ttlMs?: number;
  /** Entries kept at most; the oldest goes first. */
  maxEntries: number;
  /** Milliseconds now. Default `Date.now`. */
  now?: () => number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly o: TtlCacheOptions) {
    this.ttlMs = o.ttlMs ?? Infinity;
    this.now = o.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, while it has not lapsed. */
  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets the value (for `ttlMs`, or this entry's own lifetime); the newest entry of all. */
  set(key: K, value: V, ttlMs = this.ttlMs): void {
    this.entries.delete(key);
    if (this.entries.size >= this.o.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until: this.now() + ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
