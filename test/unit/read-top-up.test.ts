import { describe, expect, it } from 'vitest';
import { topUpAfter } from '../../src/actors/runtime/read-top-up.js';

describe('reading again at once after a blocking read that woke on the head of a burst', () => {
  it('tops up a single entry that follows a round of several', () => {
    expect(topUpAfter(2, 1)).toBe(true);
    expect(topUpAfter(64, 1)).toBe(true);
  });

  it('does not top up an answer of several entries: the read did not wake on one command', () => {
    expect(topUpAfter(64, 2)).toBe(false);
    expect(topUpAfter(64, 200)).toBe(false);
  });

  it('never reads twice for a lone asker, nor after an empty read', () => {
    expect(topUpAfter(1, 1)).toBe(false);
    expect(topUpAfter(0, 1)).toBe(false);
    expect(topUpAfter(64, 0)).toBe(false);
  });
});
