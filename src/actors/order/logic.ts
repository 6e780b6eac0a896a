import { ledgerEntry } from '../ledger-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { tellEffect } from '../tell-effect.js';
import { burnAccount, mintAccount, shown } from '../../common/movement.js';
import type { OrderMessage, OrderState, OrderStatus } from './messages.js';

const holdId = (o: { id: string }): string => `${o.id}:hold`;
const accountOf = (o: OrderState) => ({ type: 'account', key: o.account });

function moved(o: OrderState, status: OrderStatus, now: Date, extra: Partial<OrderState> = {}): OrderState {
  return { ...o, ...extra, status, updatedAt: now.toISOString() };
}

function start(msg: OrderMessage & { kind: 'start' }, ctx: { key: string; now: Date }): Decision<OrderState> {
  const at = ctx.now.toISOString();
  const { kind: _k, order, ...fields } = msg;
  const o: OrderState = {
    id: ctx.key,
    kind: order,
    ...fields,
    status: order === 'payout' ? 'reserving' : 'pending',
    createdAt: at,
    updatedAt: at,
  };
  if (order === 'exchange') return { state: o, reply: o };
  return { state: o, reply: o, effects: [holdOf(o)] };
}

/** The hold a payout places on the supplier's stablecoin, answered to the order. */
function holdOf(o: OrderState) {
  return tellEffect(accountOf(o), {
    kind: 'hold',
    id: holdId(o),
    asset: o.asset,
    amount: o.amount,
    replyTo: { type: 'order', key: o.id },
  });
}

/** The counterparty's word on a pending order: what moves on the ledger and on the account. */
function settle(o: OrderState, msg: OrderMessage & { kind: 'callback' }, now: Date): Decision<OrderState> {
  if (msg.counterparty !== o.counterparty) {
    return { state: o, rejection: reject('ORDER_NOT_FOUND', `no order ${o.id} with this counterparty`) };
  }
  if (o.status === msg.outcome && o.reference === msg.reference) return { state: o, reply: o };
  if (o.status !== 'pending') {
    const retry = o.status === 'reserving';
    return {
      state: o,
      rejection: reject('ORDER_NOT_PENDING', `order ${o.id} is ${o.status}${retry ? ': retry shortly' : ''}`, {
        status: o.status,
      }),
    };
  }
  const at = now.toISOString();
  if (msg.outcome === 'failed') {
    const next = moved(o, 'failed', now, {
      reference: msg.reference,
      failure: { code: 'COUNTERPARTY_FAILED', message: msg.reason ?? `${o.counterparty} could not settle it` },
    });
    // A failed payout gives the stablecoin back; a failed exchange order moved nothing.
    const release = tellEffect(accountOf(o), { kind: 'release', id: holdId(o), replyTo: { type: 'order', key: o.id } });
    return { state: next, reply: next, effects: o.kind === 'payout' ? [release] : [] };
  }
  const next = moved(o, 'settled', now, { reference: msg.reference });
  const record = { order: o.id, counterparty: o.counterparty, reference: msg.reference, fiat: o.fiat, at };
  if (o.kind === 'payout') {
    return {
      state: next,
      reply: next,
      effects: [
        ledgerEntry('payout.settled', {
          ...record,
          movement: [
            { account: o.account, asset: o.asset, amount: `-${o.amount}` },
            { account: burnAccount(o.asset), asset: o.asset, amount: o.amount },
          ],
        }),
        tellEffect(accountOf(o), { kind: 'capture', id: holdId(o), replyTo: { type: 'order', key: o.id } }),
      ],
    };
  }
  return {
    state: next,
    reply: next,
    effects: [
      ledgerEntry('exchange.settled', {
        ...record,
        movement: [
          { account: mintAccount(o.asset), asset: o.asset, amount: `-${o.amount}` },
          { account: o.account, asset: o.asset, amount: o.amount },
        ],
      }),
      tellEffect(accountOf(o), { kind: 'credit', id: `${o.id}:credit`, asset: o.asset, amount: o.amount }),
    ],
  };
}

export function decideOrder(
  state: OrderState | undefined,
  msg: OrderMessage,
  ctx: { key: string; now: Date },
): Decision<OrderState> {
  if (msg.kind === 'get') {
    return state ? { state, reply: state } : { state, rejection: reject('ORDER_NOT_FOUND', `no order ${ctx.key}`) };
  }
  if (msg.kind === 'start') {
    if (!state) return start(msg, ctx);
    return state.fingerprint === msg.fingerprint
      ? { state, reply: state }
      : { state, rejection: reject('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different order') };
  }
  if (!state) {
    return msg.kind === 'callback' ? { state, rejection: reject('ORDER_NOT_FOUND', `no order ${ctx.key}`) } : { state };
  }
  switch (msg.kind) {
    case 'callback':
      return settle(state, msg, ctx.now);
    case 'resume':
      // Only a hold is ours to send again; a pending order waits on its counterparty.
      if (state.status !== 'reserving') return { state };
      return { state: moved(state, 'reserving', ctx.now), effects: [holdOf(state)] };
    case 'held':
      if (state.status === 'reserving') return { state: moved(state, 'pending', ctx.now), reply: state };
      // A hold placed after the order was refused (a redelivery): nothing would capture it.
      if (state.status === 'rejected') {
        return { state, effects: [tellEffect(accountOf(state), { kind: 'release', id: holdId(state) })] };
      }
      return { state };
    case 'hold-refused': {
      if (state.status !== 'reserving') return { state };
      const failure = {
        code: 'INSUFFICIENT_BALANCE' as const,
        message: `${shown(state.amount)} ${state.asset} asked, ${shown(msg.available)} available`,
        details: { asset: state.asset, available: msg.available },
      };
      return { state: moved(state, 'rejected', ctx.now, { failure }) };
    }
    // The account's answers to a capture or a release: the order was decided already.
    case 'captured':
    case 'released':
      return { state };
  }
}

/** The read model row: the order's account, kind, status and start, for lists; the whole state. */
export const viewRow = (o: OrderState) => ({
  account: o.account,
  kind: o.kind,
  status: o.status,
  created_at: o.createdAt,
  doc: o,
});
