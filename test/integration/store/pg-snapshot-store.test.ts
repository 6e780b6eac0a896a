import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fnv1a, partitionOf } from '../../../src/actors/runtime/partitioning.js';
import { createPgSnapshotStore } from '../../../src/store/snapshot-store.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { snapshotStoreSuite } from '../../support/snapshot-store-suite.js';

let env: Isolated;
beforeAll(async () => {
  env = await isolated();
  await env.sql`CREATE TABLE suite_views (key text PRIMARY KEY, label text, n integer)`;
});
afterAll(async () => {
  await env.cleanup();
});

snapshotStoreSuite(
  'PostgreSQL',
  () => createPgSnapshotStore(env.sql),
  () => ({
    table: 'suite_views',
    read: async (key) => {
      const [row] = await env.sql<{ label: string | null; n: number | null }[]>`
        SELECT label, n FROM suite_views WHERE key = ${key}`;
      return row ? { label: row.label, n: row.n } : undefined;
    },
  }),
);

describe('hearth_partition (SQL)', () => {
  it('places every key in the partition the runtime places it in, Unicode included', async () => {
    const keys = [
      '',
      'a',
      'vch_0123456789abcdef0123456789',
      'ATUid_0f9e8d7c6b5a',
      'chat:did:key:z6Mk…',
      'ñandú-ü',
      '😀 emoji, outside the BMP 𝄞',
      ...Array.from({ length: 200 }, (_, i) => `k${i}:${(i * 7919).toString(36)}`),
    ];
    const rows = await env.sql<{ key: string; h: string; p: number }[]>`
      SELECT k AS key, hearth_fnv1a(k) AS h, hearth_partition(k, 16) AS p
      FROM unnest(${env.sql.array(keys)}::text[]) AS k`;
    expect(rows.length).toBe(keys.length);
    for (const r of rows) {
      expect({ key: r.key, h: Number(r.h) }).toEqual({ key: r.key, h: fnv1a(r.key) });
      expect(r.p).toBe(partitionOf(r.key, 16));
    }
  });
});

describe('PostgreSQL commit: outbox rows and records', () => {
  it('writes a replayed message’s outbox rows and records once: its snapshot does not advance, so the commit aborts', async () => {
    const store = createPgSnapshotStore(env.sql);
    const type = `replay-${Date.now().toString(36)}`;
    const epoch = await store.takeFence(type, 0, 'w1');
    const applied = {
      type,
      partition: 0,
      epoch,
      dirty: new Map([['a', { state: { n: 1 }, version: 1, lastMsgId: '5-0' }]]),
      outbox: [{ key: 'a', msgId: '5-0', seq: 0, topic: 'ledger', payload: { n: 1 } }],
      records: [{ key: 'a', msgId: '5-0', kind: 'thing', id: `${type}-r1`, body: { n: 1 } }],
    };
    await store.commit(applied);
    // The same message applied again (a replay by this owner or the next one).
    await expect(store.commit(applied)).rejects.toThrow(/did not advance/);
    const next = await store.takeFence(type, 0, 'w2');
    await expect(store.commit({ ...applied, epoch: next })).rejects.toThrow(/did not advance/);
    const [counts] = await env.sql<{ ledger: number; records: number }[]>`
      SELECT (SELECT count(*)::int FROM ledger_entries WHERE actor_type = ${type}) AS ledger,
             (SELECT count(*)::int FROM actor_records WHERE actor_type = ${type}) AS records`;
    expect(counts).toEqual({ ledger: 1, records: 1 });
  });
});
