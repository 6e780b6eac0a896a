import { describe, expect, it } from 'vitest';
import { UnreadMailboxes } from '../../../../src/store/redis/mailbox-unread.js';

const A = 'hearth:{echo:p0}';
const B = 'hearth:{echo:p1}';
const both = [A, B];

/** An instance past its first read (which reads everything), A having returned up to `seenA`. */
function afterFirstRead(seenA = '100-5'): UnreadMailboxes {
  const u = new UnreadMailboxes();
  u.keepOnly(both);
  expect(u.any(both)).toBe(true);
  const covers = u.take(both);
  expect(covers).toEqual([undefined, undefined]);
  u.read(A, covers[0], seenA, false);
  u.read(B, covers[1], undefined, false);
  expect(u.any(both)).toBe(false);
  return u;
}

describe('UnreadMailboxes: when a worker on a cluster reads, from its bells', () => {
  it('reads everything first, then nothing until a bell tells of something new', () => {
    const u = afterFirstRead();
    expect(u.any(both)).toBe(false);
  });

  it('passes over a bell for entries a read already returned (another node rang late)', () => {
    const u = afterFirstRead('100-5');
    expect(u.ring(A, '100-5')).toBe(false);
    expect(u.ring(A, '99-9')).toBe(false);
    expect(u.any(both)).toBe(false);
  });

  it('wakes for a newer entry, and ids compare as numbers, not as text', () => {
    const u = afterFirstRead('9-0');
    expect(u.ring(A, '10-0')).toBe(true);
    expect(u.any(both)).toBe(true);
  });

  it('wakes for a bell without an id (an outbox tell), whatever was seen', () => {
    const u = afterFirstRead();
    expect(u.ring(B, '1')).toBe(true);
    expect(u.any(both)).toBe(true);
    u.read(B, u.take(both)[1], undefined, false);
    expect(u.any(both)).toBe(false);
  });

  it('counts what a read sent after a bell covered, even when it came back empty (another consumer had it)', () => {
    const u = afterFirstRead('100-5');
    expect(u.ring(A, '200-0')).toBe(true);
    const covers = u.take(both);
    expect(covers[0]).toBe('200-0');
    u.read(A, covers[0], undefined, false);
    expect(u.any(both)).toBe(false);
    // The same bell again (a duplicate) wakes nothing.
    expect(u.ring(A, '200-0')).toBe(false);
  });

  it('forgets a bell that came while a read was out, for entries that read returned', () => {
    const u = afterFirstRead('100-5');
    const covers = u.take(both); // a read goes out (everything, say after a timeout)
    expect(u.ring(A, '150-0')).toBe(true); // its bell, heard before the read's answer
    u.read(A, covers[0], '150-0', false);
    expect(u.any(both)).toBe(false);
  });

  it('keeps a bell that came while a read was out, for an entry newer than the read returned', () => {
    const u = afterFirstRead('100-5');
    const covers = u.take(both);
    expect(u.ring(A, '300-0')).toBe(true);
    u.read(A, covers[0], '150-0', false);
    expect(u.any(both)).toBe(true);
  });

  it('reads again after a full read: more may wait, and no bell will come for them', () => {
    const u = afterFirstRead();
    u.ring(A, '500-0');
    const covers = u.take(both);
    u.read(A, covers[0], '400-0', true);
    expect(u.any(both)).toBe(true);
  });

  it('reads everything again when told (a listener back, a block time without a bell)', () => {
    const u = afterFirstRead();
    u.everything();
    expect(u.any(both)).toBe(true);
    expect(u.take(both)).toEqual([undefined, undefined]);
    expect(u.any(both)).toBe(false);
  });

  it('forgets mailboxes no longer followed: their bells, still heard, wake nothing', () => {
    const u = afterFirstRead();
    u.ring(B, '1');
    u.keepOnly([A]);
    expect(u.any([A])).toBe(false);
    expect(u.ring(B, '1')).toBe(false);
    expect(u.ring(B, '999-0')).toBe(false);
    expect(u.any([A])).toBe(false);
  });

  it('hears ids that start again below what it had seen, once everything was read again (a failover)', () => {
    const u = afterFirstRead('900-0');
    expect(u.ring(A, '500-0')).toBe(false); // below: taken for a late bell
    u.everything(); // a failed read, a listener back, the block time
    expect(u.ring(A, '500-0')).toBe(true);
  });

  it('takes the newest entry a read returned as seen, even below the old one (a mailbox made anew)', () => {
    const u = afterFirstRead('900-0');
    const covers = u.take(both); // a read at the block time, which found entries below 900-0
    u.read(A, covers[0], '50-0', false);
    expect(u.ring(A, '60-0')).toBe(true);
  });
});
