import { describe, expect, it } from 'vitest';
import { ownerOf, partitionsFor } from '../../../../src/actors/runtime/assignment.js';
import { createKeys } from '../../../../src/store/redis/keys.js';
import { fnv1a, partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { compareStreamIds, isStreamId } from '../../../../src/actors/runtime/stream-id.js';
import { chatKeys, chatShardOf } from '../../../../src/gateways/oracle/chat-keys.js';
import { ussdKeys } from '../../../../src/gateways/ussd/ussd-keys.js';

describe('stream ids', () => {
  it('compare numerically, not as strings', () => {
    expect(compareStreamIds('9-0', '10-0')).toBe(-1);
    expect(compareStreamIds('10-2', '10-10')).toBe(-1);
    expect(compareStreamIds('10-10', '10-10')).toBe(0);
    expect(compareStreamIds('1795323176967-1', '1795323176967-0')).toBe(1);
  });
  it('compare exactly past 2^53, with leading zeros, and with a missing sequence as 0', () => {
    // 2^64 - 1 and 2^64 - 2: equal as doubles, not as stream ids.
    expect(compareStreamIds('1-18446744073709551615', '1-18446744073709551614')).toBe(1);
    expect(compareStreamIds('9007199254740993-0', '9007199254740992-0')).toBe(1);
    expect(compareStreamIds('0010-02', '10-2')).toBe(0);
    expect(compareStreamIds('0-0', '00-000')).toBe(0);
    expect(compareStreamIds('5', '5-0')).toBe(0);
    expect(compareStreamIds('5', '5-1')).toBe(-1);
    // Against the integer order on random pairs (BigInt as the reference).
    const big = (id: string) => id.split('-').map((p) => BigInt(p)) as [bigint, bigint];
    for (let i = 0; i < 2_000; i++) {
      const id = () => `${Math.floor(Math.random() * 1e4)}-${Math.floor(Math.random() * 1e3)}`;
      const [a, b] = [id(), id()];
      const [[am, as], [bm, bs]] = [big(a), big(b)];
      const expected = am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
      expect(compareStreamIds(a, b)).toBe(expected);
    }
  });
  it('recognise the id form', () => {
    expect(isStreamId('1-0')).toBe(true);
    expect(isStreamId('1')).toBe(false);
    expect(isStreamId('a-b')).toBe(false);
  });
});

describe('keys', () => {
  const keys = createKeys('hearth');
  it('names mailboxes as the operator docs say', () => {
    expect(keys.mailbox('voucher', 3)).toBe('hearth:{voucher:p3}');
    expect(keys.replies('gw-1')).toBe('hearth:reply:gw-1');
    // A session's keys carry its chat shard (FNV-1a of the id, of 16) as their hash tag.
    expect(chatShardOf('s1')).toBe(fnv1a('s1') % 16);
    expect(chatKeys.events(keys, 's1')).toBe(`hearth:{chat:s${chatShardOf('s1')}}:s1:events`);
    expect(ussdKeys.live(keys, 5)).toBe('hearth:{ussd:s5}:live');
  });
  it('puts the keys a script or a transaction touches together under one hash tag (one cluster slot)', () => {
    // Redis Cluster hashes only the part between the first `{` and the next `}`.
    const tag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];
    const together = [
      [
        keys.mailbox('voucher', 3),
        keys.lease('voucher', 3),
        keys.attempts('voucher', 3),
        keys.stranded('voucher', 3),
        keys.deadLetter('voucher', 3),
      ],
      [
        chatKeys.events(keys, 's1'),
        chatKeys.turn(keys, 's1'),
        chatKeys.turnStart(keys, 's1', 'r1'),
        chatKeys.turnReaders(keys, 's1', 'r1'),
        chatKeys.turnIdUsed(keys, 's1', 'r1'),
        chatKeys.awaited(keys, 's1', 'd'),
      ],
      [ussdKeys.live(keys, 3), ussdKeys.summaries(keys, 3)],
      [keys.workers, keys.typeWorkers('voucher'), keys.typeWorkers('ussd')],
    ];
    for (const group of together) {
      expect(group.map(tag).every((t) => t !== undefined && t === tag(group[0]!))).toBe(true);
    }
    expect(tag(keys.mailbox('voucher', 3))).not.toBe(tag(keys.mailbox('voucher', 4)));
    expect(tag(ussdKeys.live(keys, 3))).not.toBe(tag(ussdKeys.live(keys, 4)));
  });
  it('refuses key parts that could break a key name', () => {
    expect(() => keys.mailbox('Voucher Type', 1)).toThrow(/invalid actor type/);
    expect(() => keys.replies('a b')).toThrow(/invalid key part/);
    expect(() => createKeys('x*y')).toThrow();
  });
});

describe('partitionOf', () => {
  it('is stable (the same key always lands on the same partition)', () => {
    expect(fnv1a('voucher-1')).toBe(fnv1a('voucher-1'));
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(partitionOf('a', 16)).toBe(fnv1a('a') % 16);
  });
  it('spreads keys roughly evenly', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[partitionOf(`key-${i}`, 16)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
  });
});

describe('assignment', () => {
  it('gives every partition exactly one owner, evenly', () => {
    const members = ['w3', 'w1', 'w2'];
    const shares = members.map((m) => partitionsFor('voucher', 16, members, m));
    expect(shares.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    const sizes = shares.map((s) => s.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });
  it('does not depend on the order members are listed in', () => {
    expect(ownerOf('survey', 5, ['b', 'a', 'c'])).toBe(ownerOf('survey', 5, ['c', 'b', 'a']));
  });
  it('has no owner when no worker is alive', () => {
    expect(ownerOf('survey', 0, [])).toBeUndefined();
  });
});
