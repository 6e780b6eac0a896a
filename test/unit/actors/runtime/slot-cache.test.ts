import { describe, expect, it } from 'vitest';
import { SlotCache } from '../../../../src/actors/runtime/slot-cache.js';

const slot = (version: number) => ({ state: { version }, version, lastMsgId: `${version}-0` });

describe('SlotCache', () => {
  it('drops the least recently used unpinned states past its capacity', () => {
    const cache = new SlotCache(2);
    cache.set('a', slot(1));
    cache.adoptPinned(new Map([['b', slot(1)]]));
    cache.set('c', slot(1));
    cache.set('d', slot(1));
    cache.evict();
    expect(['a', 'b', 'c', 'd'].filter((k) => cache.has(k))).toEqual(['b', 'd']);
  });

  it('drops retired actors at the next eviction, not before, and keeps a pinned one', () => {
    const cache = new SlotCache(100);
    cache.set('idle', slot(1));
    cache.adoptPinned(new Map([['busy', slot(2)]]));
    cache.retire(['idle', 'busy', 'never-cached']);
    expect(cache.has('idle')).toBe(true); // a round may be between its load and its apply
    cache.evict();
    expect(cache.has('idle')).toBe(false);
    expect(cache.has('busy')).toBe(true);
    // Retirement is not remembered past that eviction: the key may be cached again.
    cache.set('idle', slot(1));
    cache.evict();
    expect(cache.has('idle')).toBe(true);
  });
});
