import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';
import { journalEntries, unchainedEntries } from '../../support/ledger-records.js';
import { spawnHearth, type HearthProcess } from '../../support/processes.js';

const blockWritten = (l: Record<string, unknown>): boolean => l.msg === 'ledger block written';

describe('ledger: worker processes killed while a block is being written', () => {
  let env: Isolated;
  const workers: HearthProcess[] = [];
  const start = (): HearthProcess => {
    const w = spawnHearth(
      env.env({
        ROLE: 'worker',
        ACTOR_PARTITIONS: '4',
        LOG_LEVEL: 'info',
        LEDGER_BATCH_SIZE: '400',
        LEDGER_BATCH_MS: '20',
      }),
    );
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await env.cleanup();
  });

  /** Ledger entries as actors write them, `n` at a time. */
  const enqueue = (from: number, n: number) => env.sql`
    INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
    SELECT 'voucher', 'v-' || (i % 97), i || '-0', 0, jsonb_build_object('type', 'voucher.redeemed', 'n', i)
    FROM generate_series(${from}::int, ${from + n - 1}::int) AS i`;

  it('chains every entry exactly once, with no gap, across a kill, a standby and a restart', async () => {
    for (let i = 0; i < 30; i++) await enqueue(i * 1000, 1000);
    const a = start();
    const b = start();
    // Whichever holds the ledger lease writes; the other stands by.
    const first = await Promise.race([a.waitFor(blockWritten), b.waitFor(blockWritten)]);
    const holder = a.lines.includes(first) ? a : b;
    const standby = holder === a ? b : a;
    // Let it write a few blocks, then kill it right after one: the next block is in flight.
    await holder.waitFor((l) => blockWritten(l) && Number(l.height) >= 5);
    await holder.kill();
    const heightAtKill = Number((await env.sql<{ height: string }[]>`SELECT height FROM ledger_head`)[0]?.height);

    for (let i = 30; i < 40; i++) await enqueue(i * 1000, 1000);
    const restarted = start();
    await standby.waitFor(blockWritten, 30_000).catch(() => restarted.waitFor(blockWritten, 30_000));
    await eventually(
      () => unchainedEntries(env.sql),
      (n) => n === 0,
      60_000,
      200,
    );

    // 40,000 distinct messages went in; the blocks hold 40,000 entries, each message once.
    const chained = await journalEntries(env.sql);
    expect(chained).toHaveLength(40_000);
    expect(new Set(chained.map((e) => (JSON.parse(e.body) as { msgId: string }).msgId)).size).toBe(40_000);
    const result = await verifyJournal(env.sql);
    expect(result).toMatchObject({ ok: true, entries: 40_000 });
    expect(result.blocks).toBeGreaterThan(heightAtKill);
    expect(result.blocks).toBeGreaterThanOrEqual(100);
  }, 120_000);
});
