import { describe, expect, it } from 'vitest';
import { topUpAfter } from '../../../../src/actors/runtime/read-top-up.js';

describe('reading again at once after a blocking read that woke on the head of a burst', () => {
  it('tops up a wake with one stream of entries after a round of more', () => {
    expect(topUpAfter(2, 1, 1, 256)).toBe(true);
    expect(topUpAfter(64, 1, 1, 256)).toBe(true);
    // A gateway's burst in one script call: the read wakes with one mailbox's share of it.
    expect(topUpAfter(64, 4, 1, 256)).toBe(true);
  });

  it('does not top up an answer from several streams: the read found them there, it did not wake', () => {
    expect(topUpAfter(64, 2, 2, 256)).toBe(false);
    expect(topUpAfter(64, 40, 12, 256)).toBe(false);
  });

  it('does not top up an answer as large as the round before', () => {
    expect(topUpAfter(64, 64, 1, 256)).toBe(false);
    expect(topUpAfter(64, 200, 1, 256)).toBe(false);
  });

  it('does not top up a stream read to its batch: the round holds a batch per partition at most', () => {
    expect(topUpAfter(512, 256, 1, 256)).toBe(false);
    expect(topUpAfter(512, 255, 1, 256)).toBe(true);
  });

  it('never reads twice for a lone asker, nor after an empty read', () => {
    expect(topUpAfter(1, 1, 1, 256)).toBe(false);
    expect(topUpAfter(0, 1, 1, 256)).toBe(false);
    expect(topUpAfter(64, 0, 0, 256)).toBe(false);
  });
});
