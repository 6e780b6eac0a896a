import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import {
  balanceOf,
  conversionParties,
  issueToTreasury,
  stablecoinFromExchange,
} from '../../../support/conversion-fixtures.js';

/**
 * A deposit is committed on the implementer's account, which tells the pool through the outbox;
 * `GET /v1/pools/:id` reads the pool's read model. The deposit's 201 waits for the pool, so a
 * read right after it sees the deposit: never a 404 after the seeding one, never old reserves.
 */
describe('a pool deposit, read right after its 201', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let implementer = '';
  let implementerKey = '';

  beforeAll(async () => {
    env = await isolated();
    // One mailbox entry a round: a message ahead of the deposit's tell costs the pool a round.
    // The deposit waits for the pool up to CONVERSION_WAIT_MS, here far more than it needs.
    const config = { MAILBOX_BATCH: '1', CONVERSION_WAIT_MS: '20000' };
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', ...config }), env.log);
    a = api(hearth.port);
    ({ implementer, implementerKey } = await conversionParties(a));
    await issueToTreasury(a, implementerKey, 'cert-treasury', 1000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 1000);
    await stablecoinFromExchange(a, implementerKey, implementer, 2000);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  /**
   * A busy pool, as one under a stream of swaps is: messages ahead of the deposit's tell in its
   * mailbox (reads, which change nothing). An idle pool applies the tell within milliseconds, and
   * a read then loses the race only now and then; behind these, every time.
   */
  const busyPool = async (messages: number) => {
    const client = hearth.client!;
    await Promise.all(Array.from({ length: messages }, () => client.tell('pool', 'CARBON-USDC', { kind: 'get' })));
  };

  it('shows every deposit in the reserves at once, the seeding one included (20 in a row, the pool busy)', async () => {
    let reserves = { CARBON: 0, USDC: 0 };
    for (let i = 0; i < 20; i++) {
      await busyPool(50);
      const amounts = { CARBON: 10 + i, USDC: 20 + i };
      const deposit = await a.call('POST', '/v1/pools/CARBON-USDC/deposits', {
        key: implementerKey,
        body: { amounts, feeBps: 30 },
        headers: { 'idempotency-key': `read-after-${i}` },
      });
      expect(deposit.status, `deposit ${i}`).toBe(201);
      reserves = { CARBON: reserves.CARBON + amounts.CARBON, USDC: reserves.USDC + amounts.USDC };
      const pool = await a.call('GET', '/v1/pools/CARBON-USDC', { key: implementerKey });
      expect(pool.status, `read after deposit ${i}`).toBe(200);
      expect(pool.body.reserves, `read after deposit ${i}`).toEqual(reserves);
    }
    // A retry of a deposit is its first answer again, and the pool does not add it twice.
    const again = await a.call('POST', '/v1/pools/CARBON-USDC/deposits', {
      key: implementerKey,
      body: { amounts: { CARBON: 29, USDC: 39 }, feeBps: 30 },
      headers: { 'idempotency-key': 'read-after-19' },
    });
    expect(again.status).toBe(201);
    expect((await a.call('GET', '/v1/pools/CARBON-USDC', { key: implementerKey })).body.reserves).toEqual(reserves);
  });
});
