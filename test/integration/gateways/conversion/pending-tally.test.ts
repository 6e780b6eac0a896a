import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import { balanceOf, conversionParties, redeemAndClaim } from '../../../support/conversion-fixtures.js';

/**
 * A redemption credits its supplier's account pending in the voucher's own commit (a fact and a
 * tally of the account's, migration 027), with no message to the account: the pending CARBON
 * shows from the redemption's 201 on, the account takes no step until a claim is decided, the
 * tally keeps one row per voucher partition however many redemptions it counts, and decisions
 * settle what it counts.
 */
describe('pending credits as tallies', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let regulatorKey = '';
  const partitions = 4;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: String(partitions) }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    ({ regulatorKey } = await conversionParties(a));
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const shown = async (did: string) =>
    (await a.call('GET', `/v1/accounts/${encodeURIComponent(did)}`)).body.balances?.CARBON as
      { available: number; held: number; pending: number } | undefined;
  /** What the ledger holds on the supplier's pending account, from the entries' movements. */
  const ledgerPending = async (did: string) => {
    const [row] = await env.sql<{ micro: string | null }[]>`
      SELECT sum((m ->> 'amount')::numeric)::text AS micro
      FROM ledger_entries e, jsonb_array_elements(e.payload -> 'movement') m
      WHERE m ->> 'account' = ${`pending:${did}`}`;
    return Number(row?.micro ?? 0) / 1e6;
  };

  it('shows each redemption pending at once, with no step of the account, in rows bounded by partitions', async () => {
    const vouchers = [];
    for (let i = 0; i < 6; i++) vouchers.push(await issueVoucher(a, s, `cert-tally-${i}`, 100));
    const claims: string[] = [];
    let pending = 0;
    for (let i = 0; i < 24; i++) {
      claims.push(await redeemAndClaim(a, s, vouchers[i % vouchers.length]!, 2));
      pending += 2;
      // Read right after the 201, never polled: the commit that answered holds the credit.
      expect(await shown(s.supplierDid)).toEqual({ available: 0, held: 0, pending });
    }
    expect(await ledgerPending(s.supplierDid)).toBe(48);
    // The account took no step: no snapshot, no read model row, nothing told to it.
    const [steps] = await env.sql<{ snapshots: number; rows: number }[]>`
      SELECT (SELECT count(*)::int FROM actor_snapshots WHERE type = 'account' AND key = ${s.supplierDid}) AS snapshots,
             (SELECT count(*)::int FROM account_views WHERE key = ${s.supplierDid}) AS rows`;
    expect(steps).toEqual({ snapshots: 0, rows: 0 });
    const [tally] = await env.sql<{ rows: number; micro: string }[]>`
      SELECT count(*)::int AS rows, sum(amount)::text AS micro FROM actor_tallies
      WHERE type = 'account' AND key = ${s.supplierDid}`;
    expect(tally!.micro).toBe('48000000');
    expect(tally!.rows).toBeLessThanOrEqual(partitions);

    // Decisions settle what the tally counts: accepted becomes available, rejected goes back.
    for (const id of claims.slice(0, 5)) {
      expect((await a.call('POST', `/v1/claims/${id}/accept`, { key: regulatorKey, body: {} })).status).toBe(200);
    }
    const rejected = await a.call('POST', `/v1/claims/${claims[5]}/reject`, {
      key: regulatorKey,
      body: { reason: 'not delivered' },
    });
    expect(rejected.status).toBe(200);
    const settled = await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.available === 10 && b.pending === 36);
    expect(settled).toEqual({ available: 10, held: 0, pending: 36 });
    expect(await ledgerPending(s.supplierDid)).toBe(36);
    // Decided again: nothing changes.
    await a.call('POST', `/v1/claims/${claims[0]}/accept`, { key: regulatorKey, body: {} });
    expect(await shown(s.supplierDid)).toEqual(settled);
  });
});
