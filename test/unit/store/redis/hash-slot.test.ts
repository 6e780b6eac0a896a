import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupBySlot, hashSlot, perSlot } from '../../../../src/store/redis/hash-slot.js';

describe('hashSlot', () => {
  it('is CRC16 (XMODEM) modulo 16384, as in the Redis Cluster specification', () => {
    // The specification's own check value: CRC16 of "123456789" is 0x31C3.
    expect(hashSlot('123456789')).toBe(0x31c3);
    expect(hashSlot('foo')).toBe(12182);
    // UTF-8 bytes, not UTF-16 code units.
    expect(hashSlot('héllo')).toBe(11061);
  });

  it('agrees with a bit-by-bit CRC16 of the UTF-8 bytes for any key, ASCII or not', () => {
    const slow = (key: string) => {
      let crc = 0;
      for (const byte of Buffer.from(key, 'utf8')) {
        crc ^= byte << 8;
        for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
      }
      return crc % 16384;
    };
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (key) => {
        const untagged = key.replace(/[{}]/g, '');
        expect(hashSlot(untagged)).toBe(slow(untagged));
      }),
      { numRuns: 2_000 },
    );
  });

  it('hashes only the hash tag when there is one, and the whole key when it is empty', () => {
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('user1000'));
    expect(hashSlot('hearth:{voucher:p3}:lease')).toBe(hashSlot('hearth:{voucher:p3}'));
    expect(hashSlot('hearth:{voucher:p3}')).toBe(5284);
    expect(hashSlot('a{}b')).toBe(13694);
    // The first `{` and the next `}`: an empty first tag means the whole key. (Values checked
    // with CLUSTER KEYSLOT on redis-server 7.0 --cluster-enabled yes.)
    expect(hashSlot('{}{x}')).toBe(3257);
  });
});

describe('groupBySlot', () => {
  it('puts keys of one slot together, in order, and keys of other slots apart', () => {
    const keys = ['h:{a}:1', 'h:{b}:1', 'h:{a}:2', 'h:{b}:2', 'h:{a}:3'];
    const groups = groupBySlot(keys, (k) => k);
    expect(groups).toEqual([
      ['h:{a}:1', 'h:{a}:2', 'h:{a}:3'],
      ['h:{b}:1', 'h:{b}:2'],
    ]);
  });
});

describe('perSlot', () => {
  const echo = (calls: string[][]) => (group: string[]) => {
    calls.push(group);
    return Promise.resolve(group.map((k) => `${k}!`));
  };

  it("makes one call on one Redis, and one per slot on a cluster, answering in the items' order", async () => {
    const keys = ['{a}1', '{b}1', '{a}1', '{b}2'];
    const single: string[][] = [];
    expect(await perSlot(false, keys, (k) => k, echo(single))).toEqual(['{a}1!', '{b}1!', '{a}1!', '{b}2!']);
    expect(single).toHaveLength(1);
    const cluster: string[][] = [];
    // The same key twice keeps both places.
    expect(await perSlot(true, keys, (k) => k, echo(cluster))).toEqual(['{a}1!', '{b}1!', '{a}1!', '{b}2!']);
    expect(cluster).toEqual([
      ['{a}1', '{a}1'],
      ['{b}1', '{b}2'],
    ]);
  });
});
