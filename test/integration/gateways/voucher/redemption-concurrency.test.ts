import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../../../support/processes.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import { ledgerRecords } from '../../../support/ledger-records.js';

const partitionTaken = (l: Record<string, unknown>): boolean => l.msg === 'partitions taken' && l.actor === 'voucher';

describe('redemptions under concurrency, across worker processes', () => {
  let env: Isolated;
  let gateway: Hearth;
  let a: Api;
  let s: Scheme;
  const workers: HearthProcess[] = [];
  const workerEnv = (): Record<string, string> =>
    env.env({ ROLE: 'worker', ACTOR_PARTITIONS: '4', LEASE_TTL_MS: '1500', LOG_LEVEL: 'info' });

  beforeAll(async () => {
    env = await isolated();
    gateway = await startHearth(
      env.config({ ROLE: 'gateway', HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4', ASK_TIMEOUT_MS: '6000' }),
      env.log,
    );
    a = api(gateway.port);
    const first = spawnHearth(workerEnv());
    workers.push(first);
    await first.waitFor(partitionTaken);
    s = await setUpScheme(a);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await gateway.close();
    await env.cleanup();
  });

  const redeem = (voucherId: string, amount: number, idempotencyKey?: string) =>
    a.call('POST', '/v1/vouchers/redeem', {
      key: s.supplierKey,
      body: { voucherId, supplierDid: s.supplierDid, amount, productId: 'stove-1' },
      headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    });

  /** The redemptions on the ledger: in a journal block, or waiting for one. */
  async function ledgerRedemptions(voucherId: string): Promise<string[]> {
    const records = await ledgerRecords(env.sql, { actorType: 'voucher', type: 'voucher.redeemed' });
    return records.filter((r) => r.actorKey === voucherId).map((r) => String(r.payload.id));
  }

  it('lets exactly 500 of 1,000 concurrent redemptions of 1 through against a voucher of 500, while a second worker joins', async () => {
    const voucherId = await issueVoucher(a, s, 'cert-concurrent', 500);
    const calls: Array<ReturnType<Api['call']>> = [];
    for (let i = 0; i < 1000; i++) {
      calls.push(redeem(voucherId, 1));
      if (i === 300) {
        const second = spawnHearth(workerEnv()); // joins mid-load: partitions move between processes
        workers.push(second);
      }
    }
    const results = await Promise.all(calls);
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(ok).toHaveLength(500);
    expect(refused).toHaveLength(500);
    expect(
      refused.every((r) => r.body.error.code === 'INSUFFICIENT_BALANCE' || r.body.error.code === 'VOUCHER_NOT_ACTIVE'),
    ).toBe(true);
    // Balances seen by the successful redemptions are all distinct: no two applied on the same state.
    expect(new Set(ok.map((r) => r.body.remainingBalance)).size).toBe(500);

    const v = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey });
    expect(v.body).toMatchObject({ remainingBalance: 0, status: 'redeemed' });
    const listed = await a.call('GET', `/v1/vouchers/${voucherId}/redemptions?limit=100`, { key: s.implementerKey });
    expect(listed.body.total).toBe(500);
    expect((await ledgerRedemptions(voucherId)).sort()).toEqual(ok.map((r) => r.body.id as string).sort());
  });

  it('keeps every 201 in the redemption list and the outbox when the owning worker is killed mid-load', async () => {
    const voucherId = await issueVoucher(a, s, 'cert-crash', 300);
    // Make sure both workers are up, so one survives the kill.
    while (workers.length < 2) workers.push(spawnHearth(workerEnv()));
    await Promise.all(workers.map((w) => w.waitFor((l) => l.msg === 'hearth listening')));

    // The victim is the worker that owns the voucher's partition now.
    const lease = await eventually(
      () => env.redis.get(env.keys.lease('voucher', partitionOf(voucherId, 4))),
      (owner) => owner !== null && workers.some((w) => owner.includes(`-${w.child.pid}-`)),
    );
    const victim = workers.find((w) => lease?.includes(`-${w.child.pid}-`))!;
    const survivor = workers.find((w) => w !== victim)!;

    // What the supplier's account shows pending before: each redemption adds to it in its own commit.
    const pendingOf = async () =>
      ((await a.call('GET', `/v1/accounts/${encodeURIComponent(s.supplierDid)}`)).body.balances?.CARBON?.pending as
        number | undefined) ?? 0;
    const pendingBefore = await pendingOf();
    const calls: Array<ReturnType<Api['call']>> = [];
    for (let i = 0; i < 400; i++) {
      calls.push(redeem(voucherId, 1, `crash-${i}`));
      if (i === 150) await victim.kill(); // SIGKILL: no hand-over; its lease expires and the survivor claims its pending entries
      // A sleep on purpose: spreads the load over the kill.
      if (i % 25 === 0) await new Promise((r) => setTimeout(r, 10));
    }
    let results = await Promise.all(calls);
    // A redemption committed by the victim just before it died may have lost its reply (504):
    // the client retries with the same Idempotency-Key and gets the first answer, not a second redemption.
    const timedOut = results.map((r, i) => [r, i] as const).filter(([r]) => r.status === 504);
    const retried = await Promise.all(timedOut.map(([, i]) => redeem(voucherId, 1, `crash-${i}`)));
    results = results.map((r) => (r.status === 504 ? retried.shift()! : r));
    const ok = results.filter((r) => r.status === 201);
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);

    const listed = await a.call('GET', `/v1/vouchers/${voucherId}/redemptions?limit=100`, { key: s.implementerKey });
    const all: Array<{ id: string; amount: number }> = [];
    for (let offset = 0; offset < listed.body.total; offset += 100) {
      const page = await a.call('GET', `/v1/vouchers/${voucherId}/redemptions?limit=100&offset=${offset}`, {
        key: s.implementerKey,
      });
      all.push(...page.body.items);
    }
    const listedIds = new Set(all.map((r) => r.id));
    expect(listedIds.size).toBe(all.length); // no redemption twice
    for (const r of ok) expect(listedIds.has(r.body.id)).toBe(true);
    expect((await ledgerRedemptions(voucherId)).sort()).toEqual([...listedIds].sort());
    const v = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey });
    const spent = all.reduce((n, r) => n + r.amount, 0);
    expect(v.body.remainingBalance).toBe(300 - spent);
    expect(spent).toBe(300); // 400 asks of 1 against 300: the voucher is used up
    expect(ok).toHaveLength(300);
    // Each redemption credited its supplier once through the kill: its pending tally grew by
    // exactly what was redeemed, none twice, none lost.
    expect(await pendingOf()).toBe(pendingBefore + 300);
    expect(
      survivor.lines.some(
        (l) =>
          l.msg === 'partitions taken' &&
          l.actor === 'voucher' &&
          Array.isArray(l.partitions) &&
          l.partitions.includes(partitionOf(voucherId, 4)),
      ),
    ).toBe(true);
    workers.splice(workers.indexOf(victim), 1);
  });
});
