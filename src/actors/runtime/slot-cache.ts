import type { Slot } from './ports.js';

/**
 * The actor states a partition owner keeps in memory, least recently used first. Keys whose
 * newest state is not yet committed are pinned: dropping them would make the next load read an
 * older snapshot from Postgres.
 */
export class SlotCache {
  private readonly slots = new Map<string, Slot>();
  private readonly pins = new Map<string, number>();
  private readonly retired = new Set<string>();

  constructor(private readonly capacity: number) {}

  get view(): ReadonlyMap<string, Slot> {
    return this.slots;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  set(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.slots.set(key, slot);
  }

  /** Takes a batch's new (uncommitted) states, pinned until {@link unpin}. */
  adoptPinned(dirty: ReadonlyMap<string, Slot>): void {
    for (const [k, s] of dirty) {
      this.set(k, s);
      this.pins.set(k, (this.pins.get(k) ?? 0) + 1);
    }
  }

  /** The batch that pinned these keys is committed: they may be dropped again (at the next {@link evict}). */
  unpin(keys: Iterable<string>): void {
    for (const k of keys) {
      const n = (this.pins.get(k) ?? 1) - 1;
      if (n <= 0) this.pins.delete(k);
      else this.pins.set(k, n);
    }
  }

  /** Every state in memory is committed. */
  unpinAll(): void {
    this.pins.clear();
  }

  /**
   * Actors retired by their retention policy: dropped at the next {@link evict} (so never between
   * a round's load and its apply), unless pinned (a pinned state is about to be written: not idle).
   */
  retire(keys: readonly string[]): void {
    for (const k of keys) if (this.slots.has(k)) this.retired.add(k);
  }

  clear(): void {
    this.slots.clear();
    this.pins.clear();
    this.retired.clear();
  }

  /**
   * Drops the least recently used unpinned states past capacity. Called only where no batch is
   * between choosing the keys to load and applying (never from a commit callback), so a state
   * cannot vanish while a batch waits for its load.
   */
  evict(): void {
    for (const k of this.retired) if (!this.pins.has(k)) this.slots.delete(k);
    this.retired.clear();
    let excess = this.slots.size - this.capacity;
    if (excess <= 0) return;
    for (const k of this.slots.keys()) {
      if (excess <= 0) break;
      if (this.pins.has(k)) continue;
      this.slots.delete(k);
      excess--;
    }
  }
}
