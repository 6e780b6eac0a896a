import { z } from 'zod';
import { asset, micro, stepId } from '../common/money-fields.js';
import { ledgerEntry } from '../actors/ledger-effect.js';
import { actorRef } from '../actors/runtime/actor-ref.js';
import { reject, type ActorDefinition, type Decision } from '../actors/runtime/types.js';
import { tellEffect } from '../actors/tell-effect.js';
import { burnAccount, mintAccount, shown } from '../common/movement.js';

/**
 * An order settled outside hearth by a counterparty (docs/design/token-conversion.md, steps 2
 * and 6), one actor per order, keyed by its id:
 * - a **payout** (step 2): a supplier's stablecoin paid out in local currency by a payment
 *   processor. It holds the stablecoin on the supplier's account (reserving → pending), then the
 *   processor's signed callback settles it (the hold is captured and the stablecoin leaves
 *   hearth's custody: `burn:<asset>`) or fails it (the hold is released);
 * - an **exchange** order (step 6): an implementer's fiat converted by a regulated exchange
 *   operator. Pending until the operator confirms: then the stablecoin enters custody
 *   (`mint:<asset>`) and is credited to the implementer.
 * Each step to the account is a tell through the outbox with an id of its own (`<order>:hold`,
 * `<order>:credit`), applied once; a callback told again answers as the order stands.
 */
type OrderStatus = 'reserving' | 'pending' | 'settled' | 'failed' | 'rejected';

export interface OrderState {
  id: string;
  kind: 'payout' | 'exchange';
  /** The party's account (its DID). */
  account: string;
  /** The payment processor or exchange operator (a counterparty id). */
  counterparty: string;
  asset: string;
  /** Micro-units of the stablecoin paid out (payout) or to be credited (exchange). */
  amount: string;
  fiat: { amount: number; currency: string; rate: number };
  fingerprint: string;
  status: OrderStatus;
  /** The counterparty's reference, from its callback. */
  reference?: string;
  failure?: { code: 'INSUFFICIENT_BALANCE' | 'COUNTERPARTY_FAILED'; message: string; details?: unknown };
  createdAt: string;
  updatedAt: string;
}

const orderMessages = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('start'),
    order: z.enum(['payout', 'exchange']),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    account: z.string().min(1).max(512),
    counterparty: z.string().min(1).max(128),
    asset,
    amount: micro,
    fiat: z.strictObject({
      amount: z.number().positive(),
      currency: z.string().regex(/^[A-Z]{3}$/),
      rate: z.number().positive(),
    }),
  }),
  z.strictObject({
    kind: z.literal('callback'),
    counterparty: z.string().min(1).max(128),
    outcome: z.enum(['settled', 'failed']),
    reference: z.string().min(1).max(200),
    reason: z.string().max(500).optional(),
  }),
  z.strictObject({ kind: z.literal('held'), id: stepId }),
  z.strictObject({ kind: z.literal('hold-refused'), id: stepId, available: z.string() }),
  z.strictObject({ kind: z.literal('captured'), id: stepId }),
  z.strictObject({ kind: z.literal('released'), id: stepId }),
  /** From the saga sweep: a payout still reserving asks for its hold again. */
  z.strictObject({ kind: z.literal('resume') }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type OrderMessage = z.infer<typeof orderMessages>;

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

function decideOrder(
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

export const orderActor: ActorDefinition<OrderState, OrderMessage> = {
  type: 'order',
  messages: orderMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideOrder,
  view: {
    table: 'order_views',
    columns: ['account', 'kind', 'status', 'created_at', 'doc'],
    row: (o) => ({ account: o.account, kind: o.kind, status: o.status, created_at: o.createdAt, doc: o }),
  },
};

export const orderRef = actorRef<OrderMessage, { [K in OrderMessage['kind']]: OrderState }>('order');
