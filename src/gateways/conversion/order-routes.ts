import { createHash } from 'node:crypto';
import type { Asker } from '../../actors/runtime/asker.js';
import { orderRef, type OrderState } from '../../actors/order/index.js';
import { AppError } from '../../errors/index.js';
import type { Counterparties, CounterpartyKind } from '../../store/counterparties.js';
import { guarded, type Guards } from '../auth/guard.js';
import type { Role } from '../auth/principal.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody, parseWith, queryObject, type HttpContext } from '../http/context.js';
import { pageOf, pageQuery } from '../http/pagination.js';
import { json, type Reply } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { accountOf, stepIdOf } from './caller.js';
import type { ConversionReads } from './conversion-reads.js';
import { micro, orderView } from './conversion-view.js';
import { exchangeBody, orderViewSchema, payoutBody } from './schemas.js';
import { readUntil } from './wait.js';

export interface OrderDeps {
  client: Asker;
  reads: ConversionReads;
  counterparties: Counterparties;
  stablecoin: string;
  waitMs: number;
}

/** The kind of counterparty each kind of order goes to, and how its paths and ids read. */
const kinds = {
  payout: { counterparty: 'payment-processor', path: '/v1/payouts', prefix: 'po', role: 'supplier' },
  exchange: { counterparty: 'exchange-operator', path: '/v1/exchange-orders', prefix: 'ex', role: 'implementer' },
} as const satisfies Record<
  OrderState['kind'],
  { counterparty: CounterpartyKind; path: string; prefix: string; role: Role }
>;

/** What a new order answers: 201 waiting for its counterparty, its refusal, or 202 while still reserving. */
function answer(o: OrderState): Reply {
  if (o.status === 'rejected' && o.failure) {
    const view = orderView(o);
    throw new AppError('INSUFFICIENT_BALANCE', o.failure.message, {
      orderId: o.id,
      ...(view.failure?.details as object),
    });
  }
  if (o.status === 'reserving') return json(202, orderView(o), { Location: `${kinds[o.kind].path}/${o.id}` });
  return json(201, orderView(o));
}

async function startOrder(
  d: OrderDeps,
  ctx: HttpContext,
  kind: OrderState['kind'],
  account: string,
  id: string,
  order: { counterparty: string; amount: string; fiat: OrderState['fiat'] },
): Promise<Reply> {
  const known = await d.counterparties.get(order.counterparty);
  if (known?.kind !== kinds[kind].counterparty) {
    throw new AppError('COUNTERPARTY_NOT_FOUND', `no ${kinds[kind].counterparty} ${order.counterparty}`);
  }
  const fingerprint = createHash('sha256')
    .update(`POST ${kinds[kind].path}\n`)
    .update(await ctx.body())
    .digest('hex');
  const started = await d.client.ask(orderRef, id, {
    kind: 'start',
    order: kind,
    fingerprint,
    account,
    asset: d.stablecoin,
    ...order,
  });
  const now =
    started.status === 'reserving'
      ? ((await readUntil(
          () => d.reads.order(id, kind),
          (o) => o.status !== 'reserving',
          d.waitMs,
        )) ?? started)
      : started;
  return answer(now);
}

function reads(g: Guards, d: OrderDeps, kind: OrderState['kind']): RouteSpec[] {
  const { path, role } = kinds[kind];
  const noun = kind === 'payout' ? 'payouts' : 'exchange orders';
  return [
    {
      method: 'GET',
      path,
      doc: {
        operationId: kind === 'payout' ? 'listPayouts' : 'listExchangeOrders',
        summary: `The caller's ${noun}, newest first`,
        tag: 'conversions',
        query: pageQuery,
        responses: { 200: `A page of ${noun}` },
        responseBody: pageOf(orderViewSchema),
        errors: ['VALIDATION_FAILED', 'FORBIDDEN'],
      },
      handler: guarded(g, [role], async (ctx, who) => {
        const q = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const { items, total } = await d.reads.orders(accountOf(who), kind, q.limit, q.offset);
        return json(200, { items: items.map(orderView), total, limit: q.limit, offset: q.offset });
      }),
    },
    {
      method: 'GET',
      path: `${path}/:id`,
      doc: {
        operationId: kind === 'payout' ? 'getPayout' : 'getExchangeOrder',
        summary: `One of the ${noun} (its owner, an admin or a regulator)`,
        tag: 'conversions',
        responses: { 200: 'As it stands' },
        responseBody: orderViewSchema,
        errors: ['ORDER_NOT_FOUND'],
      },
      handler: guarded(g, [role, 'admin', 'regulator'], async (ctx, who) => {
        const o = await d.reads.order(ctx.params.id ?? '', kind);
        const mayRead = who.role === 'admin' || who.role === 'regulator' || (o && o.account === who.did);
        if (!o || !mayRead) throw new AppError('ORDER_NOT_FOUND', `no ${kind} order ${ctx.params.id}`);
        return json(200, orderView(o));
      }),
    },
  ];
}

/** Steps 2 (payouts) and 6 (exchange orders) of the token conversion flow, and their reads. */
export function orderRoutes(g: Guards, d: OrderDeps): RouteSpec[] {
  const errors = ['IDEMPOTENCY_KEY_REUSED', 'COUNTERPARTY_NOT_FOUND', 'FORBIDDEN'] as const;
  return [
    {
      method: 'POST',
      path: kinds.payout.path,
      doc: {
        operationId: 'createPayout',
        summary: 'Pay stablecoin out in local currency through a payment processor (supplier, signed; step 2)',
        tag: 'conversions',
        body: payoutBody,
        idempotencyKey: 'required',
        responses: {
          201: 'Held on the account, pending until the processor calls back',
          202: 'Still reserving after CONVERSION_WAIT_MS: `Location` is where to read it',
        },
        responseBody: orderViewSchema,
        errors: [...errors, 'INSUFFICIENT_BALANCE', ...askErrors],
      },
      handler: guarded(
        g,
        ['supplier'],
        async (ctx, who) => {
          const account = accountOf(who);
          const id = stepIdOf(kinds.payout.prefix, account, ctx);
          // The schema bounds the rate and what it makes of the amount (schemas.ts).
          const body = await jsonBody(ctx, payoutBody);
          const fiat = { amount: body.fiatAmount, currency: body.currency, rate: body.rate };
          return startOrder(d, ctx, 'payout', account, id, {
            counterparty: body.processor,
            amount: micro(body.amount),
            fiat,
          });
        },
        { ownIdempotency: true },
      ),
    },
    {
      method: 'POST',
      path: kinds.exchange.path,
      doc: {
        operationId: 'createExchangeOrder',
        summary:
          'Convert fiat to the stablecoin through a regulated exchange operator (implementer with a DID; step 6)',
        tag: 'conversions',
        body: exchangeBody,
        idempotencyKey: 'required',
        responses: { 201: 'Pending until the operator confirms; the stablecoin is credited then' },
        responseBody: orderViewSchema,
        errors: [...errors, 'VALIDATION_FAILED', ...askErrors],
      },
      handler: guarded(
        g,
        ['implementer'],
        async (ctx, who) => {
          const account = accountOf(who);
          const id = stepIdOf(kinds.exchange.prefix, account, ctx);
          // What the fiat buys at the quoted rate, bounded by the schema like the rate (schemas.ts).
          const body = await jsonBody(ctx, exchangeBody);
          const fiat = { amount: body.fiatAmount, currency: body.currency, rate: body.rate };
          return startOrder(d, ctx, 'exchange', account, id, {
            counterparty: body.exchange,
            amount: body.stable,
            fiat,
          });
        },
        { ownIdempotency: true },
      ),
    },
    ...reads(g, d, 'payout'),
    ...reads(g, d, 'exchange'),
  ];
}
