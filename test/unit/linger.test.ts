import { describe, expect, it } from 'vitest';
import { LINGER_FROM_ENTRIES, LINGER_MS, lingerAfter } from '../../src/actors/runtime/linger.js';

/** A round read from partitions holding these many entries each. */
const round = (...sizes: number[]) => new Map(sizes.map((n, p) => [p, Array.from({ length: n })]));

describe('lingering before the next read (commit_delay for mailboxes)', () => {
  it('waits after a round that shows load, counting every partition of it', () => {
    expect(lingerAfter(round(LINGER_FROM_ENTRIES), 'commit-before-reply')).toBe(LINGER_MS);
    expect(lingerAfter(round(6, 5, 5), 'commit-before-reply')).toBe(LINGER_MS);
  });

  it('reads at once under light load: a lone asker never waits', () => {
    expect(lingerAfter(round(1), 'commit-before-reply')).toBe(0);
    expect(lingerAfter(round(5, 5, 5), 'commit-before-reply')).toBe(0);
    expect(lingerAfter(round(), 'commit-before-reply')).toBe(0);
  });

  it('never waits for write-behind types, which reply before they commit', () => {
    expect(lingerAfter(round(500), 'write-behind')).toBe(0);
  });
});
