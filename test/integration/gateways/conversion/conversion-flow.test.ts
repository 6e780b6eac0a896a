import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { verifyJournal } from '../../../../src/ledger/verify.js';
import { verifyInclusion } from '../../../../src/ledger/merkle.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { ledgerRecords, unchainedEntries } from '../../../support/ledger-records.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import {
  addSupplier,
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  redeemAndClaim,
} from '../../../support/conversion-fixtures.js';

/**
 * The token conversion flow end to end over HTTP: an exchange operator's confirmation brings the
 * implementer's stablecoin in (step 6), a treasury issuance its CARBON, and both seed the pool; a
 * supplier's accepted claim makes CARBON available, converted (step 1) and paid out through a
 * payment processor (step 2). Counterparties answer by signed callbacks. The ledger balances.
 */
describe('the token conversion flow, end to end', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let implementer = '';
  let implementerKey = '';
  let regulatorKey = '';
  const secrets: Record<string, string> = {};
  let n = 0;

  /** A counterparty's callback, signed as its own systems would: HMAC-SHA256 of `<t>.<body>`. */
  const callback = (counterparty: string, body: unknown, opts: { secret?: string; at?: number } = {}) => {
    const text = JSON.stringify(body);
    const t = String(opts.at ?? Math.floor(Date.now() / 1000));
    const mac = createHmac('sha256', opts.secret ?? secrets[counterparty]!)
      .update(`${t}.${text}`)
      .digest('hex');
    return a.call('POST', `/v1/callbacks/${counterparty}`, {
      key: '',
      body: text,
      headers: { 'x-hearth-timestamp': t, 'x-hearth-signature': `sha256=${mac}` },
    });
  };
  const post = (path: string, body: unknown, key: string) =>
    a.call('POST', path, { key, body, headers: { 'idempotency-key': `k-${++n}` } });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log);
    a = api(hearth.port);
    s = await setUpScheme(a);
    ({ implementer, implementerKey, regulatorKey } = await conversionParties(a));
    for (const [id, kind] of [
      ['lusaka-fx', 'exchange-operator'],
      ['zamtel-money', 'payment-processor'],
    ] as const) {
      const r = await a.call('POST', '/v1/counterparties', { body: { id, kind, name: id } });
      expect(r.status).toBe(201);
      secrets[id] = r.body.secret;
    }
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('registers counterparties with a secret shown once and kept sealed', async () => {
    const list = await a.call('GET', '/v1/counterparties');
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: 'lusaka-fx', kind: 'exchange-operator' }),
      expect.objectContaining({ id: 'zamtel-money', kind: 'payment-processor' }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const [row] = await env.sql<
      { secret_sealed: string }[]
    >`SELECT secret_sealed FROM counterparties WHERE id = 'zamtel-money'`;
    expect(row!.secret_sealed).not.toContain(secrets['zamtel-money']!.slice(6));
    expect(
      (await a.call('POST', '/v1/counterparties', { body: { id: 'lusaka-fx', kind: 'exchange-operator', name: 'x' } }))
        .status,
    ).toBe(409);
  });

  it('credits the implementer’s stablecoin when the exchange operator confirms its order (step 6)', async () => {
    const order = await post(
      '/v1/exchange-orders',
      { exchange: 'lusaka-fx', fiatAmount: 56_700, currency: 'ZMW', rate: 27 },
      implementerKey,
    );
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({
      kind: 'exchange',
      status: 'pending',
      amount: 2100,
      fiat: { amount: 56_700, currency: 'ZMW', rate: 27 },
    });
    const settle = { orderId: order.body.id, status: 'settled', reference: 'LFX-1' };
    // Forged, stale, or from the wrong counterparty: refused, nothing credited.
    expect((await callback('lusaka-fx', settle, { secret: 'whsec_guess' })).status).toBe(401);
    expect((await callback('lusaka-fx', settle, { at: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(401);
    expect((await callback('nobody', settle, { secret: 'whsec_guess' })).status).toBe(401);
    expect((await callback('zamtel-money', settle)).status).toBe(404);
    const done = await callback('lusaka-fx', settle);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'settled', reference: 'LFX-1' });
    expect((await callback('lusaka-fx', settle)).body).toEqual(done.body);
    expect(await balanceOf(a, implementer, 'USDC', (b) => b.available === 2100)).toMatchObject({ available: 2100 });
    const read = await a.call('GET', `/v1/exchange-orders/${order.body.id}`, { key: implementerKey });
    expect(read.body).toEqual(done.body);
    expect((await a.call('GET', `/v1/exchange-orders/${order.body.id}`, { key: s.supplierKey })).status).toBe(403);
  });

  it('seeds the pool from the implementer’s account and lets a supplier convert accepted CARBON (step 1)', async () => {
    await issueToTreasury(a, implementerKey, 'cert-treasury', 1000);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === 1000);
    const tooMuch = await post(
      '/v1/pools/CARBON-USDC/deposits',
      { amounts: { CARBON: 1000, USDC: 5000 } },
      implementerKey,
    );
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error.details).toEqual({ asset: 'USDC', available: 2100 });
    await depositToPool(a, implementerKey, { CARBON: 1000, USDC: 2000 }, 'seed');
    const voucherId = await issueVoucher(a, s, 'cert-household', 100);
    const claimId = await redeemAndClaim(a, s, voucherId, 40);
    await a.call('POST', `/v1/claims/${claimId}/accept`, { key: regulatorKey, body: {} });
    await balanceOf(a, s.supplierDid, 'CARBON', (b) => b.available === 40);
    const converted = await post('/v1/conversions/carbon-to-stable', { amount: 40, minReceive: 70 }, s.supplierKey);
    expect(converted.status).toBe(201);
    expect(converted.body.amountOut).toBeGreaterThan(70);
  });

  it('refuses a party whose account never held anything (409 INSUFFICIENT_BALANCE), for a conversion and a payout', async () => {
    // Its account has no state: the refused hold is told back to the saga all the same (it used
    // to fail its commit on a NULL snapshot, leaving the saga reserving for ever).
    const fresh = await addSupplier(a, s, 'Never credited');
    const conversion = await post('/v1/conversions/carbon-to-stable', { amount: 1, minReceive: 0 }, fresh.supplierKey);
    expect(conversion.status).toBe(409);
    expect(conversion.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { available: 0 } });
    const payout = await post(
      '/v1/payouts',
      { processor: 'zamtel-money', amount: 1, currency: 'ZMW', rate: 27 },
      fresh.supplierKey,
    );
    expect(payout.status).toBe(409);
    expect(payout.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { available: 0 } });
  });

  it('pays a supplier’s stablecoin out through a processor: held, then settled or given back (step 2)', async () => {
    const { available } = await balanceOf(a, s.supplierDid, 'USDC', (b) => b.available > 0);
    const poor = await post(
      '/v1/payouts',
      { processor: 'zamtel-money', amount: available + 1, currency: 'ZMW', rate: 27 },
      s.supplierKey,
    );
    expect(poor.status).toBe(409);
    expect(poor.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { available } });
    expect(
      (await post('/v1/payouts', { processor: 'lusaka-fx', amount: 1, currency: 'ZMW', rate: 27 }, s.supplierKey))
        .status,
    ).toBe(404);

    const first = await post(
      '/v1/payouts',
      { processor: 'zamtel-money', amount: 10, currency: 'ZMW', rate: 27 },
      s.supplierKey,
    );
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      kind: 'payout',
      status: 'pending',
      amount: 10,
      fiat: { amount: 270, currency: 'ZMW' },
    });
    expect(await balanceOf(a, s.supplierDid, 'USDC', (b) => b.held === 10)).toMatchObject({
      available: available - 10,
    });
    const failed = await callback('zamtel-money', {
      orderId: first.body.id,
      status: 'failed',
      reference: 'ZM-1',
      reason: 'wallet closed',
    });
    expect(failed.body).toMatchObject({
      status: 'failed',
      failure: { code: 'COUNTERPARTY_FAILED', message: 'wallet closed' },
    });
    expect(await balanceOf(a, s.supplierDid, 'USDC', (b) => b.held === 0)).toMatchObject({ available });

    const second = await post(
      '/v1/payouts',
      { processor: 'zamtel-money', amount: 10, currency: 'ZMW', rate: 27 },
      s.supplierKey,
    );
    const settled = await callback('zamtel-money', { orderId: second.body.id, status: 'settled', reference: 'ZM-2' });
    expect(settled.body.status).toBe('settled');
    expect(await balanceOf(a, s.supplierDid, 'USDC', (b) => b.held === 0 && b.available < available)).toMatchObject({
      available: Math.round((available - 10) * 1e6) / 1e6,
    });
    // The same Idempotency-Key: the same payout; with another body, refused.
    const once = { key: s.supplierKey, headers: { 'idempotency-key': 'payout-once' } };
    const body = { processor: 'zamtel-money', amount: 1, currency: 'ZMW', rate: 27 };
    const made = await a.call('POST', '/v1/payouts', { ...once, body });
    expect(made.status).toBe(201);
    expect((await a.call('POST', '/v1/payouts', { ...once, body })).body.id).toBe(made.body.id);
    const reused = await a.call('POST', '/v1/payouts', { ...once, body: { ...body, amount: 2 } });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await callback('zamtel-money', { orderId: made.body.id, status: 'failed', reference: 'ZM-3' });
    await balanceOf(a, s.supplierDid, 'USDC', (b) => b.held === 0);
    const mine = await a.call('GET', '/v1/payouts', { key: s.supplierKey });
    expect(mine.body.items.map((p: { status: string }) => p.status)).toEqual([
      'failed',
      'settled',
      'failed',
      'rejected',
    ]);
  });

  it('swaps the stablecoin for CARBON (step 3), burns it into ITMO claims with transfer proofs (step 4), certified once a regulator approves (step 5)', async () => {
    const swapped = await post('/v1/conversions/stable-to-carbon', { amount: 100, minReceive: 40 }, implementerKey);
    expect(swapped.status).toBe(201);
    const carbon = swapped.body.amountOut as number;
    const claim = async (amount: number) => post('/v1/itmo-claims', { amount }, implementerKey);
    expect((await claim(carbon + 1)).status).toBe(409);
    const first = await claim(20);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ accountDid: implementer, units: 20, status: 'claimed' });
    const second = (await claim(10)).body.id as string;
    expect((await balanceOf(a, implementer, 'CARBON', () => true)).available).toBeCloseTo(carbon - 30, 6);
    const proven = await eventually(
      async () => (await a.call('GET', `/v1/itmo-claims/${first.body.id}`, { key: regulatorKey })).body,
      (c: { transferProof: unknown }) => c.transferProof !== null,
    );
    const proof = proven.transferProof as {
      entry: { payload: unknown };
      leafHash: string;
      merklePath: Array<{ side: 'left' | 'right'; hash: string }>;
      block: { merkleRoot: string };
    };
    expect(proof.entry.payload).toMatchObject({ type: 'itmo.claimed', ref: first.body.id, units: '20000000' });
    expect(verifyInclusion(proof.leafHash, proof.merklePath, proof.block.merkleRoot)).toBe(true);
    expect((await a.call('GET', `/v1/itmo-claims/${first.body.id}`, { key: s.supplierKey })).status).toBe(403);

    const request = (claims: string[], serial: string) =>
      post(
        '/v1/itmo-certificates',
        {
          claims,
          registry: 'Zambia National Registry',
          serialRange: { from: `ZM-${serial}-0001`, to: `ZM-${serial}-0020` },
          agreement: { id: 'MOPA-2026-01', buyer: 'Swiss KliK' },
          fiatReceived: { amount: 600, currency: 'USD' },
        },
        implementerKey,
      );
    const cert = await request([first.body.id], 'A');
    expect(cert.status).toBe(201);
    expect(cert.body).toMatchObject({ status: 'requested', units: 20, claims: [first.body.id] });
    const again = await request([first.body.id, second], 'B');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'ITMO_CLAIM_UNAVAILABLE', details: { claims: [first.body.id] } });
    expect(
      (await a.call('POST', `/v1/itmo-certificates/${cert.body.id}/approve`, { key: implementerKey, body: {} })).status,
    ).toBe(403);
    const approved = await a.call('POST', `/v1/itmo-certificates/${cert.body.id}/approve`, {
      key: regulatorKey,
      body: {},
    });
    expect(approved.body).toMatchObject({ status: 'approved', decision: { by: expect.any(String) } });
    const certified = await a.call('GET', `/v1/itmo-claims/${first.body.id}`, { key: implementerKey });
    expect(certified.body).toMatchObject({ status: 'certified', certificate: cert.body.id });
    // A rejected request frees its claims for another.
    const doomed = await request([second], 'C');
    const rejected = await a.call('POST', `/v1/itmo-certificates/${doomed.body.id}/reject`, {
      key: regulatorKey,
      body: { reason: 'serials overlap' },
    });
    expect(rejected.body).toMatchObject({ status: 'rejected', decision: { reason: 'serials overlap' } });
    expect((await request([second], 'D')).status).toBe(201);
    expect(
      (await a.call('POST', `/v1/itmo-certificates/${doomed.body.id}/approve`, { key: regulatorKey, body: {} })).status,
    ).toBe(409);
  });

  it('allows each step to its role only, and refuses an Idempotency-Key reused with another body', async () => {
    const steps: Array<[string, unknown]> = [
      ['/v1/payouts', { processor: 'zamtel-money', amount: 1, currency: 'ZMW', rate: 27 }],
      ['/v1/exchange-orders', { exchange: 'lusaka-fx', fiatAmount: 27, currency: 'ZMW', rate: 27 }],
      ['/v1/itmo-claims', { amount: 1 }],
      ['/v1/conversions/stable-to-carbon', { amount: 1, minReceive: 0 }],
    ];
    // A supplier may pay out only; an implementer may do the rest.
    for (const [path, body] of steps.slice(1)) expect((await post(path, body, s.supplierKey)).status).toBe(403);
    expect((await post(steps[0]![0], steps[0]![1], implementerKey)).status).toBe(403);
    expect((await post(steps[2]![0], steps[2]![1], regulatorKey)).status).toBe(403);
    for (const [path, body] of [steps[1]!, steps[2]!]) {
      const headers = { 'idempotency-key': `reused${path.replaceAll('/', '.')}` };
      expect((await a.call('POST', path, { key: implementerKey, body, headers })).status).toBe(201);
      const other = { ...(body as object), ...(path.includes('itmo') ? { amount: 2 } : { fiatAmount: 54 }) };
      const reused = await a.call('POST', path, { key: implementerKey, body: other, headers });
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
  });

  it('leaves a ledger that verifies: movements balanced, nobody below zero, accounts equal to it', async () => {
    // Every entry in a block first: the verifier reads the journal.
    await eventually(
      () => unchainedEntries(env.sql),
      (left) => left === 0,
    );
    const result = await verifyJournal(env.sql);
    expect(result).toMatchObject({ ok: true });
    const usdc = result.assets!.USDC!;
    expect(usdc).toEqual({ minted: '2100000000', burned: '10000000', held: '2090000000' });
    expect(result.assets!.CARBON).toEqual({ minted: '1100000000', burned: '31000000', held: '1069000000' });
    // The parties' accounts have converged on the ledger.
    const entries = await ledgerRecords(env.sql);
    const legs = entries.flatMap(
      (e) => (e.payload.movement as Array<{ account: string; asset: string; amount: string }>) ?? [],
    );
    for (const did of [s.supplierDid, implementer]) {
      const view = (await a.call('GET', `/v1/accounts/${encodeURIComponent(did)}`)).body.balances;
      for (const asset of ['CARBON', 'USDC']) {
        const onLedger = legs
          .filter((l) => l.account === did && l.asset === asset)
          .reduce((t, l) => t + BigInt(l.amount), 0n);
        const b = view[asset] ?? { available: 0, held: 0 };
        expect(BigInt(Math.round((b.available + b.held) * 1e6))).toBe(onLedger);
      }
    }
  });
});
