import { describe, expect, it } from 'vitest';
import { LOADED_ROUND, topUpAfter } from '../../src/actors/runtime/read-top-up.js';

describe('reading again at once after a blocking read that woke on the head of a burst', () => {
  it('tops up a short answer that follows a loaded round', () => {
    expect(topUpAfter(LOADED_ROUND, 1)).toBe(true);
    expect(topUpAfter(64, LOADED_ROUND - 1)).toBe(true);
  });

  it('does not top up an answer that already holds a loaded round', () => {
    expect(topUpAfter(64, LOADED_ROUND)).toBe(false);
    expect(topUpAfter(64, 200)).toBe(false);
  });

  it('never reads twice under light load: a lone asker pays no second round trip', () => {
    expect(topUpAfter(1, 1)).toBe(false);
    expect(topUpAfter(LOADED_ROUND - 1, 1)).toBe(false);
    expect(topUpAfter(0, 0)).toBe(false);
  });
});
