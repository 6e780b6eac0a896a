import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Slot } from '../../../src/actors/runtime/ports.js';
import type { BatchCommit } from '../../../src/actors/runtime/ports.js';
import { conversionActor, type ConversionState } from '../../../src/actors/conversion/index.js';
import { createPgSnapshotStore } from '../../../src/store/snapshot-store.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/**
 * Snapshot commits update their rows in place (HOT): no index reads `state`, so a new state adds
 * no index entry. PostgreSQL counts a backend's HOT updates until it reports them, so each case
 * commits through a store bound to one open transaction and reads the count before and after.
 */
describe('snapshot commits', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  async function hotUpdatesOf(
    type: string,
    key: string,
    states: (n: number) => unknown,
    opts: { table?: string; commits?: number; view?: (state: unknown) => BatchCommit['view'] } = {},
  ): Promise<number> {
    const table = opts.table ?? 'actor_snapshots';
    const last = 1 + (opts.commits ?? 20);
    let hot = -1;
    await env.sql
      .begin(async (tx) => {
        const store = createPgSnapshotStore(tx as unknown as typeof env.sql);
        const epoch = await store.takeFence(type, 0, 'hot-test');
        const commit = (n: number): Promise<void> => {
          const slot: Slot = { state: states(n), version: n, lastMsgId: `${1000 + n}-0` };
          const batch: BatchCommit = {
            type,
            partition: 0,
            epoch,
            dirty: new Map([[key, slot]]),
            outbox: [],
            ...(opts.view ? { view: opts.view(slot.state) } : {}),
          };
          return store.commit(batch);
        };
        const counted = async (): Promise<number> => {
          const [row] = await tx<{ hot: string }[]>`
            SELECT pg_stat_get_xact_tuples_hot_updated(${table}::regclass) AS hot`;
          return Number(row?.hot);
        };
        await commit(1);
        const before = await counted();
        for (let n = 2; n <= last; n++) await commit(n);
        hot = (await counted()) - before;
        throw new Error('roll back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error && err.message === 'roll back')) throw err;
      });
    return hot;
  }

  it('of an actor no lookup index covers are HOT updates', async () => {
    expect(await hotUpdatesOf('echo', 'hot-echo', (n) => ({ echoes: n }))).toBe(20);
  });

  it('of a voucher whose indexed fields stay put are HOT updates too', async () => {
    const voucher = (n: number) => ({
      id: 'v-hot',
      recipientDid: 'did:ixo:household-hot',
      emissionCertificateId: 'cert-hot',
      remainingBalance: 1000 - n,
    });
    expect(await hotUpdatesOf('voucher', 'v-hot', voucher)).toBe(20);
  });

  it("of a conversion's read model row between its saga's start and end are HOT updates (migration 029)", async () => {
    // reserving (inserted), swapping, settling: two updates in place; completed clears `running`,
    // which the sweep's index is defined by: that one update moves the row.
    const statuses: ConversionState['status'][] = ['reserving', 'swapping', 'settling', 'completed'];
    const saga = (n: number): ConversionState => ({
      id: 'cv-hot',
      account: 'did:ixo:trader-hot',
      pool: 'pool-hot',
      assetIn: 'CARBON',
      amountIn: '1000000',
      minOut: '0',
      fingerprint: '0'.repeat(64),
      status: statuses[n - 1]!,
      createdAt: '2026-11-28T00:00:00.000Z',
      updatedAt: `2026-11-28T00:00:0${n}.000Z`,
    });
    const { view } = conversionActor;
    const rows = (state: unknown): BatchCommit['view'] => ({
      table: view!.table,
      columns: view!.columns,
      rows: [{ key: 'cv-hot', row: view!.row(state as ConversionState) }],
    });
    const inPlace = (upTo: number) =>
      hotUpdatesOf('conversion', 'cv-hot', saga, { table: 'conversion_views', commits: upTo, view: rows });
    expect(await inPlace(2)).toBe(2);
    expect(await inPlace(3)).toBe(2);
  });
});
