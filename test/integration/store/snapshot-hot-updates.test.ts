import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Slot } from '../../../src/actors/runtime/ports.js';
import type { BatchCommit } from '../../../src/actors/runtime/ports.js';
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

  async function hotUpdatesOf(type: string, key: string, states: (n: number) => unknown): Promise<number> {
    let hot = -1;
    await env.sql
      .begin(async (tx) => {
        const store = createPgSnapshotStore(tx as unknown as typeof env.sql);
        const epoch = await store.takeFence(type, 0, 'hot-test');
        const commit = (n: number): Promise<void> => {
          const slot: Slot = { state: states(n), version: n, lastMsgId: `${1000 + n}-0` };
          const batch: BatchCommit = { type, partition: 0, epoch, dirty: new Map([[key, slot]]), outbox: [] };
          return store.commit(batch);
        };
        const counted = async (): Promise<number> => {
          const [row] = await tx<{ hot: string }[]>`
            SELECT pg_stat_get_xact_tuples_hot_updated('actor_snapshots'::regclass) AS hot`;
          return Number(row?.hot);
        };
        await commit(1);
        const before = await counted();
        for (let n = 2; n <= 21; n++) await commit(n);
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
});
