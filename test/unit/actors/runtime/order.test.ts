import { describe, expect, it } from 'vitest';
import type { ActorContext, OutboxEffect } from '../../../../src/actors/runtime/types.js';
import { orderActor, type OrderMessage, type OrderState } from '../../../../src/actors/order/index.js';

const ctx = { key: 'po_1', now: new Date('2026-11-25T10:00:00Z') } as ActorContext;
const start = (order: 'payout' | 'exchange'): OrderMessage => ({
  kind: 'start',
  order,
  fingerprint: 'a'.repeat(64),
  account: 'did:key:party',
  counterparty: 'zamtel-money',
  asset: 'USDC',
  amount: '10000000',
  fiat: { amount: 270, currency: 'ZMW', rate: 27 },
});
const callback = (outcome: 'settled' | 'failed', reference = 'ref-1'): OrderMessage => ({
  kind: 'callback',
  counterparty: 'zamtel-money',
  outcome,
  reference,
});

function apply(state: OrderState | undefined, m: OrderMessage) {
  return orderActor.decide(state, orderActor.messages.parse(m), ctx);
}

/** The effects by what they are: ledger entries by type, tells by the message's kind. */
function kinds(effects: readonly OutboxEffect[] = []): string[] {
  return effects.map((e) => {
    const p = e.payload as { type: string; message?: { kind: string } };
    return e.topic === 'ledger' ? p.type : `${p.type}:${p.message!.kind}`;
  });
}

describe('an order settled by a counterparty', () => {
  it('holds a payout, then captures it and burns the stablecoin when the processor settles', () => {
    const started = apply(undefined, start('payout'));
    expect(started.state?.status).toBe('reserving');
    expect(kinds(started.effects)).toEqual(['account:hold']);
    // A callback before the hold is placed: refused, to be retried.
    expect(apply(started.state, callback('settled')).rejection?.code).toBe('ORDER_NOT_PENDING');
    const pending = apply(started.state, { kind: 'held', id: 'po_1:hold' }).state;
    expect(pending?.status).toBe('pending');
    const settled = apply(pending, callback('settled'));
    expect(settled.state).toMatchObject({ status: 'settled', reference: 'ref-1' });
    expect(kinds(settled.effects)).toEqual(['payout.settled', 'account:capture']);
    expect(settled.effects?.[0]?.payload).toMatchObject({
      movement: [
        { account: 'did:key:party', asset: 'USDC', amount: '-10000000' },
        { account: 'burn:USDC', asset: 'USDC', amount: '10000000' },
      ],
    });
    // The same callback again changes nothing; the other outcome is refused.
    expect(apply(settled.state, callback('settled')).state).toBe(settled.state);
    expect(apply(settled.state, callback('failed')).rejection?.code).toBe('ORDER_NOT_PENDING');
  });

  it('gives a failed payout back, and refuses one the account cannot cover', () => {
    const pending = apply(apply(undefined, start('payout')).state, { kind: 'held', id: 'po_1:hold' }).state;
    const failed = apply(pending, { ...callback('failed'), reason: 'wallet closed' } as OrderMessage);
    expect(failed.state).toMatchObject({
      status: 'failed',
      failure: { code: 'COUNTERPARTY_FAILED', message: 'wallet closed' },
    });
    expect(kinds(failed.effects)).toEqual(['account:release']);
    const refused = apply(apply(undefined, start('payout')).state, {
      kind: 'hold-refused',
      id: 'po_1:hold',
      available: '2000000',
    });
    expect(refused.state).toMatchObject({ status: 'rejected', failure: { code: 'INSUFFICIENT_BALANCE' } });
    // A hold placed late, after the refusal (a redelivery), is released.
    expect(kinds(apply(refused.state, { kind: 'held', id: 'po_1:hold' }).effects)).toEqual(['account:release']);
  });

  it('mints and credits an exchange order’s stablecoin once the operator confirms', () => {
    const pending = apply(undefined, start('exchange'));
    expect(pending.state?.status).toBe('pending');
    expect(pending.effects ?? []).toEqual([]);
    const settled = apply(pending.state, callback('settled', 'ex-77'));
    expect(kinds(settled.effects)).toEqual(['exchange.settled', 'account:credit']);
    expect(settled.effects?.[0]?.payload).toMatchObject({
      movement: [
        { account: 'mint:USDC', asset: 'USDC', amount: '-10000000' },
        { account: 'did:key:party', asset: 'USDC', amount: '10000000' },
      ],
    });
    expect(apply(undefined, callback('settled')).rejection?.code).toBe('ORDER_NOT_FOUND');
    expect(
      apply(pending.state, { ...callback('settled'), counterparty: 'other' } as OrderMessage).rejection?.code,
    ).toBe('ORDER_NOT_FOUND');
    expect(
      apply(pending.state, { ...start('exchange'), fingerprint: 'b'.repeat(64) } as OrderMessage).rejection?.code,
    ).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
