import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/ttl-cache.js';

describe('TtlCache', () => {
  it('keeps an entry for its lifetime on the injected clock, and one entry for its own', () => {
    let now = 1_000;
    const cache = new TtlCache<string, number>({ ttlMs: 5_000, maxEntries: 10, now: () => now });
    cache.set('a', 1);
    cache.set('b', 2, 60_000);
    now += 4_999;
    expect(cache.get('a')).toBe(1);
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.has('b')).toBe(true);
    now += 55_000;
    expect(cache.has('b')).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('drops its oldest entry when full, not all of them; setting again makes an entry the newest', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 3 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.set('a', 10); // now the newest
    cache.set('d', 4); // b, the oldest, goes
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([10, undefined, 3, 4]);
    expect(cache.size).toBe(3);
  });

  it('keeps entries without a lifetime until the size bound removes them, and forgets on delete or clear', () => {
    const cache = new TtlCache<string, string>({ maxEntries: 2, now: () => Number.MAX_SAFE_INTEGER });
    cache.set('k', 'v');
    expect(cache.get('k')).toBe('v');
    cache.delete('k');
    expect(cache.get('k')).toBeUndefined();
    cache.set('x', '1');
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
