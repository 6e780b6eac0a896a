import { describe, expect, it } from 'vitest';
import { decideVoucher, isExpired } from '../../src/actors/voucher/logic.js';
import type { VoucherMessage, VoucherState } from '../../src/actors/voucher/messages.js';

const ctx = (msgId: string, now = new Date('2026-06-01T12:00:00Z')) => ({
  key: 'vch_1',
  now,
  id: (n = 0) => `${msgId}-id-${n}`,
});
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

  it('answers a retried redemption with the first redemption instead of redeeming twice', () => {
    const first = decideVoucher(issued(), redeem(1_000_000, 'same'), ctx('2-0'));
    const again = decideVoucher(first.state, redeem(1_000_000, 'same'), ctx('3-0'));
    expect(again.reply).toEqual(first.reply);
    expect(again.state?.remainingBalance).toBe(9_000_000);
    expect(again.effects).toBeUndefined();
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
