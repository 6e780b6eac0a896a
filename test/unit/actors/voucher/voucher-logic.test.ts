import { describe, expect, it } from 'vitest';
import { decideVoucher, isExpired } from '../../../../src/actors/voucher/logic.js';
import { voucherActor } from '../../../../src/actors/voucher/index.js';
import type { Redemption, VoucherMessage, VoucherState } from '../../../../src/actors/voucher/messages.js';
import { redemptionView } from '../../../../src/actors/voucher/representation.js';
import { redemptionIdFor } from '../../../../src/actors/voucher/redemption-id.js';
import { decider } from '../../../support/decider.js';

const ctx = (msgId: string, now = new Date('2026-06-01T12:00:00Z')) => ({
  key: 'vch_1',
  now,
  id: (n = 0) => `${msgId}-id-${n}`,
  fact: () => undefined,
});
/** A voucher driven as the runtime would, its remembered requests and refunds as facts. */
const voucher = () => {
  const v = decider(voucherActor, { key: 'vch_1', now: () => new Date('2026-06-01T12:00:00Z') });
  v.send(issue);
  return v;
};
const movementOf = (d: { effects?: Array<{ payload: unknown }> }) =>
  (d.effects?.[0]?.payload as { movement?: unknown } | undefined)?.movement;
const issue: VoucherMessage = {
  kind: 'issue',
  requestId: 'req-issue',
  recipientDid: 'did:key:zh',
  emissionCertificateId: 'c1',
  value: 10_000_000,
  attributes: { batchId: 'b', issuanceDate: '2026-01-01', expiryDate: '2026-06-30' },
};
const redeem = (amount: number, requestId: string): VoucherMessage => ({
  kind: 'redeem',
  requestId,
  supplierDid: 'did:key:zs',
  productId: 'p',
  amount,
});

function issued(): VoucherState {
  const d = decideVoucher(undefined, issue, ctx('1-0'));
  return JSON.parse(JSON.stringify(d.state)) as VoucherState;
}

describe('voucher decide', () => {
  it('issues with the full value as balance and a ledger effect', () => {
    const d = decideVoucher(undefined, issue, ctx('1-0'));
    expect(d.state).toMatchObject({ id: 'vch_1', status: 'active', value: 10_000_000, remainingBalance: 10_000_000 });
    expect(d.effects?.[0]).toMatchObject({ topic: 'ledger', payload: { type: 'voucher.issued', id: 'vch_1' } });
  });

  it('answers a retried issue with the first answer, and refuses another issue with CERTIFICATE_ALREADY_USED', () => {
    const v = issued();
    const retry = decideVoucher(v, issue, ctx('2-0'));
    expect(retry.rejection).toBeUndefined();
    expect(retry.state).toBe(v);
    expect(decideVoucher(v, { ...issue, requestId: 'other' }, ctx('3-0')).rejection?.code).toBe(
      'CERTIFICATE_ALREADY_USED',
    );
  });

  it('redeems in parts, ends redeemed at 0, and never goes below zero', () => {
    let v = issued();
    const a = decideVoucher(v, redeem(4_000_000, 'r1'), ctx('2-0'));
    v = a.state!;
    expect(v.remainingBalance).toBe(6_000_000);
    expect(decideVoucher(v, redeem(6_000_001, 'r2'), ctx('3-0')).rejection?.code).toBe('INSUFFICIENT_BALANCE');
    v = decideVoucher(v, redeem(6_000_000, 'r3'), ctx('4-0')).state!;
    expect(v).toMatchObject({ remainingBalance: 0, status: 'redeemed' });
    expect(decideVoucher(v, redeem(1, 'r4'), ctx('5-0')).rejection?.code).toBe('VOUCHER_NOT_ACTIVE');
  });

  it("credits its supplier's account pending in its own commit: a tally of the account's, no tell", () => {
    const v = voucher();
    const d = v.send(redeem(4_000_000, 'r1'));
    const id = (d.reply as { id: string }).id;
    expect(d.effects?.map((e) => e.topic)).toEqual(['ledger']);
    expect(movementOf(d)).toEqual([
      { account: 'voucher:vch_1', asset: 'CARBON', amount: '-4000000' },
      { account: 'pending:did:key:zs', asset: 'CARBON', amount: '4000000' },
    ]);
    // The redemption says its credit was tallied (its claim's decision tells the account so),
    // and neither its reply to a client nor its ledger entry shows that.
    expect(d.reply).toMatchObject({ id, tallied: true });
    expect(redemptionView(d.reply as Redemption)).not.toHaveProperty('tallied');
    expect(d.effects?.[0]?.payload).not.toHaveProperty('tallied');
    expect(d.tallies).toEqual([{ type: 'account', key: 'did:key:zs', name: 'pending:CARBON', by: '4000000' }]);
    // Refused, it writes nothing anywhere.
    const refused = v.send(redeem(7_000_000, 'r2'));
    expect(refused.rejection?.code).toBe('INSUFFICIENT_BALANCE');
    expect(refused.tallies ?? []).toEqual([]);
  });

  it('answers a retried redemption with the first redemption instead of redeeming twice, however many came since', () => {
    const v = voucher();
    const first = v.send(redeem(1_000, 'same'));
    for (let i = 0; i < 300; i++) v.send(redeem(1_000, `other-${i}`));
    const again = v.send(redeem(1_000, 'same'));
    expect(again.reply).toEqual(first.reply);
    expect(v.state?.remainingBalance).toBe(10_000_000 - 301 * 1_000);
    // Found by its record, whose id the voucher and the request name: no fact of the request.
    expect((first.reply as Redemption).id).toBe(redemptionIdFor('vch_1', 'same'));
    expect(first.facts ?? []).toEqual([]);
    expect(v.facts.has('redeem:same')).toBe(false);
    expect(again.effects).toBeUndefined();
    // The same key for another redemption is refused.
    expect(v.send(redeem(2_000, 'same')).rejection?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // A request id the server made (no Idempotency-Key) redeems like any other, its record named
    // by it like any other.
    const served = v.send(redeem(1_000, 'srv:0f1e'));
    expect((served.reply as Redemption).id).toBe(redemptionIdFor('vch_1', 'srv:0f1e'));
    expect(served.records?.map((r) => r.id)).toEqual([redemptionIdFor('vch_1', 'srv:0f1e')]);
    // The snapshot holds no redemption: they are records.
    expect(JSON.stringify(v.state).length).toBeLessThan(400);
    // A redemption made before ids were derived is still found, by the fact of its request.
    const old = { ...(first.reply as Redemption), id: 'made-before', requestId: 'old-key' };
    v.facts.set('redeem:old-key', old);
    const before = v.state?.remainingBalance;
    expect(v.send(redeem(1_000, 'old-key')).reply).toEqual(old);
    expect(v.state?.remainingBalance).toBe(before);
  });

  it('returns the unspent CARBON of a revoked voucher to mint, and so the CARBON of a claim rejected after', () => {
    const v = voucher();
    v.send(redeem(4_000_000, 'r1'));
    const revoked = v.send({ kind: 'revoke', reason: 'fraud' });
    expect(movementOf(revoked)).toEqual([
      { account: 'voucher:vch_1', asset: 'CARBON', amount: '-6000000' },
      { account: 'mint:CARBON', asset: 'CARBON', amount: '6000000' },
    ]);
    const refund: VoucherMessage = { kind: 'refund', redemptionId: 'red-1', amount: 4_000_000 };
    const returned = v.send(refund);
    expect(returned.effects?.[0]?.payload).toMatchObject({ type: 'voucher.refund-returned' });
    expect(movementOf(returned)).toEqual([
      { account: 'voucher:vch_1', asset: 'CARBON', amount: '-4000000' },
      { account: 'mint:CARBON', asset: 'CARBON', amount: '4000000' },
    ]);
    expect(v.state).toMatchObject({ status: 'revoked', remainingBalance: 6_000_000 });
    // Told again, it moves nothing more.
    expect(v.send(refund).effects ?? []).toEqual([]);
  });

  it('gives the CARBON of a rejected claim back to an active voucher once', () => {
    const v = voucher();
    v.send(redeem(10_000_000, 'all'));
    expect(v.state?.status).toBe('redeemed');
    const refund: VoucherMessage = { kind: 'refund', redemptionId: 'red-1', amount: 3_000_000 };
    v.send(refund);
    v.send(refund);
    expect(v.state).toMatchObject({ status: 'active', remainingBalance: 3_000_000 });
  });

  it('refuses to redeem after the expiry date, and counts the expiry day itself as valid', () => {
    const v = issued();
    expect(isExpired(v, new Date('2026-06-30T23:59:59Z'))).toBe(false);
    expect(isExpired(v, new Date('2026-07-01T00:00:00Z'))).toBe(true);
    const late = decideVoucher(v, redeem(1, 'r'), ctx('2-0', new Date('2026-07-01T00:00:00Z')));
    expect(late.rejection?.code).toBe('VOUCHER_EXPIRED');
  });

  it('answers get with VOUCHER_NOT_FOUND before issue', () => {
    expect(decideVoucher(undefined, { kind: 'get' }, ctx('1-0')).rejection?.code).toBe('VOUCHER_NOT_FOUND');
    expect(decideVoucher(undefined, redeem(1, 'r'), ctx('1-0')).rejection?.code).toBe('VOUCHER_NOT_FOUND');
  });
});
