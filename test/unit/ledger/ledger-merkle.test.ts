import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blockHash, entryBody } from '../../../src/ledger/block.js';
import { canonicalJson } from '../../../src/common/canonical-json.js';
import { inclusionPath, leafHash, merkleRoot, verifyInclusion } from '../../../src/ledger/merkle.js';

const h = (...parts: Buffer[]): string => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
const hex = (s: string): Buffer => Buffer.from(s, 'hex');

describe('ledger Merkle tree (RFC 6962)', () => {
  const leaves = Array.from({ length: 33 }, (_, i) => leafHash(`entry-${i}`));

  it('hashes leaves and nodes with distinct prefixes, split at the largest power of two', () => {
    expect(leafHash('x')).toBe(h(Buffer.from([0]), Buffer.from('x')));
    const [a, b, c] = leaves as [string, string, string];
    expect(merkleRoot([a])).toBe(a);
    expect(merkleRoot([a, b])).toBe(h(Buffer.from([1]), hex(a), hex(b)));
    // Three leaves: (a b) on the left, c alone on the right; no duplicated padding leaf.
    expect(merkleRoot([a, b, c])).toBe(h(Buffer.from([1]), hex(h(Buffer.from([1]), hex(a), hex(b))), hex(c)));
    expect(merkleRoot([a, b, c])).not.toBe(merkleRoot([a, b, c, c]));
  });

  it('gives every leaf of every tree size a path that folds to the root, and no other leaf', () => {
    for (let n = 1; n <= leaves.length; n++) {
      const tree = leaves.slice(0, n);
      const root = merkleRoot(tree);
      for (let i = 0; i < n; i++) {
        const path = inclusionPath(tree, i);
        expect(path.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        expect(verifyInclusion(tree[i]!, path, root)).toBe(true);
        expect(verifyInclusion(tree[(i + 1) % n]!, path, root)).toBe(n === 1);
      }
    }
    expect(() => inclusionPath(leaves.slice(0, 3), 3)).toThrow(RangeError);
  });

  it('changes the root when any one leaf changes', () => {
    const root = merkleRoot(leaves);
    for (let i = 0; i < leaves.length; i++) {
      const altered = [...leaves];
      altered[i] = leafHash(`altered-${i}`);
      expect(merkleRoot(altered)).not.toBe(root);
    }
  });
});

describe('ledger canonical bytes', () => {
  it('sorts keys at every depth and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it('gives the bytes of its definition (sort, filter, map, join) for values of every shape', () => {
    // The definition as first written: the bytes every chained entry was hashed over.
    const reference = (v: unknown): string => {
      if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
      if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
      const o = v as Record<string, unknown>;
      const fields = Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${reference(o[k])}`);
      return `{${fields.join(',')}}`;
    };
    const values: unknown[] = [
      {},
      [],
      [undefined, null, 1, 'a'],
      { '': 1, 'é"\\\n': 'x\u2028', b: [{}, [[]]], a: { c: undefined, d: undefined } },
      { x: undefined },
      { z: () => 1, y: Symbol('s'), n: -0, f: 1.5e-7, big: 1e21 },
      { movement: [{ account: 'voucher:1', asset: 'CARBON', amount: '-5' }], at: '2026-01-01T00:00:00.000Z' },
      new Date(0),
      'plain',
      42,
      undefined,
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(reference(v));
  });

  it('covers every field of an entry and of a block header', () => {
    const entry = {
      id: '7',
      actorType: 'voucher',
      actorKey: 'v1',
      msgId: '1-0',
      seq: 0,
      payload: { type: 'voucher.redeemed', amount: 1 },
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const body = entryBody(entry);
    expect(JSON.parse(body)).toMatchObject({ entryId: '7', actor: { type: 'voucher', key: 'v1' } });
    for (const change of [{ id: '8' }, { actorKey: 'v2' }, { msgId: '2-0' }, { seq: 1 }, { payload: { amount: 2 } }]) {
      expect(entryBody({ ...entry, ...change })).not.toBe(body);
    }
    const header = { height: 1, prevHash: '0'.repeat(64), merkleRoot: 'ab', entryCount: 1, createdAt: entry.createdAt };
    const hash = blockHash(header);
    for (const change of [
      { height: 2 },
      { prevHash: '1'.repeat(64) },
      { merkleRoot: 'ac' },
      { entryCount: 2 },
      { createdAt: '2026-01-01T00:00:00.001Z' },
    ]) {
      expect(blockHash({ ...header, ...change })).not.toBe(hash);
    }
  });
});

describe('ledger failure text shown in /health', () => {
  it('cuts URLs to their origin and bounds the length', async () => {
    const { publicReason } = await import('../../../src/ledger/public-reason.js');
    expect(publicReason('fetch https://rpc.example.com/v1/abcdef0123secret/?key=xyz failed')).toBe(
      'fetch https://rpc.example.com failed',
    );
    expect(publicReason('x'.repeat(2_000))).toHaveLength(501);
  });

  it("masks a database's bare host:port, and keeps a URL's origin and times of day", async () => {
    const { publicReason } = await import('../../../src/ledger/public-reason.js');
    expect(publicReason('write ECONNREFUSED db.internal:5432')).toBe('write ECONNREFUSED <host>:<port>');
    expect(publicReason('connect ECONNREFUSED 10.0.3.4:5432 (pool)')).toBe('connect ECONNREFUSED <host>:<port> (pool)');
    expect(publicReason('fetch http://node.example:26657/status failed')).toBe(
      'fetch http://node.example:26657 failed',
    );
    expect(publicReason('retry at 12:30 failed')).toBe('retry at 12:30 failed');
  });
});
