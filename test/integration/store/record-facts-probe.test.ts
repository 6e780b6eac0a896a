import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFact } from '../../../src/actors/runtime/types.js';
import { createPgSnapshotStore } from '../../../src/store/snapshot-store.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/**
 * A record read as a fact is found by the records' primary key, whatever the statistics say:
 * with the actor's key in the probe, the planner took the index by actor, which reads every
 * record of the actor per probe, so a hot voucher's redemptions slowed as its records piled up
 * (the bench measured 4,260 → 1,101/s). The statistics here are the bench's: analyzed while
 * every actor had one record, then one actor gets thousands.
 */
describe('records read as facts', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
    await env.sql`
      INSERT INTO actor_records (actor_type, actor_key, kind, record_id, msg_id, body)
      SELECT 'voucher', 'spread-' || i, 'redemption', 'spread-r' || i, i || '-0', '{"amount":1}'
      FROM generate_series(1, 5000) AS i`;
    await env.sql`ANALYZE actor_records`;
    await env.sql`
      INSERT INTO actor_records (actor_type, actor_key, kind, record_id, msg_id, body)
      SELECT 'voucher', 'hot', 'redemption', 'hot-r' || i, (10000 + i) || '-0', '{"amount":1}'
      FROM generate_series(1, 5000) AS i`;
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it("probes the primary key, never the index of the actor's records", async () => {
    const scans = await env.sql.begin(async (tx) => {
      const store = createPgSnapshotStore(tx as unknown as typeof env.sql);
      const count = async () => {
        const [row] = await tx<{ byActor: string; byKey: string }[]>`
          SELECT pg_stat_get_xact_numscans('actor_records_by_actor'::regclass) AS "byActor",
                 pg_stat_get_xact_numscans('actor_records_pkey'::regclass) AS "byKey"`;
        return { byActor: Number(row?.byActor), byKey: Number(row?.byKey) };
      };
      const before = await count();
      const refs = Array.from({ length: 64 }, (_, i) => ({
        key: 'hot',
        id: recordFact('redemption', `hot-r${i + 1}`),
      }));
      const found = await store.loadFacts('voucher', [
        ...refs,
        { key: 'other', id: recordFact('redemption', 'hot-r1') },
      ]);
      expect(found.size).toBe(64);
      const after = await count();
      return { byActor: after.byActor - before.byActor, byKey: after.byKey - before.byKey };
    });
    expect(scans.byActor).toBe(0);
    expect(scans.byKey).toBeGreaterThan(0);
  });
});
