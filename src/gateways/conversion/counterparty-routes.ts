import { z } from 'zod';
import type { Asker } from '../../actors/runtime/asker.js';
import { orderRef } from '../../actors/order/index.js';
import { AppError, isAppError } from '../../errors/index.js';
import type { Counterparties } from '../../store/counterparties.js';
import { guarded, type Guards } from '../auth/guard.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { checkCallbackSignature } from './callback-signature.js';
import { orderView } from './conversion-view.js';
import { callbackBody, counterpartyBody, counterpartySchema, orderViewSchema } from './schemas.js';

export interface CounterpartyDeps {
  client: Asker;
  counterparties: Counterparties;
  clock: () => Date;
}

/**
 * Payment processors and exchange operators: registered by an admin (their callback secret is
 * shown once), and their signed callbacks, which settle or fail the orders sent to them.
 */
export function counterpartyRoutes(g: Guards, d: CounterpartyDeps): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/v1/counterparties',
      doc: {
        operationId: 'createCounterparty',
        summary: 'Register a payment processor or an exchange operator; its callback secret is shown once (admin)',
        tag: 'conversions',
        body: counterpartyBody,
        responses: { 201: 'The counterparty, and `secret`: what it signs its callbacks with' },
        responseBody: counterpartySchema.extend({ secret: z.string() }),
        errors: ['ALREADY_EXISTS'],
      },
      handler: guarded(g, ['admin'], async (ctx) => {
        const body = await jsonBody(ctx, counterpartyBody);
        const made = await d.counterparties.create(body);
        if (!made) throw new AppError('ALREADY_EXISTS', `a counterparty ${body.id} exists already`);
        return json(201, { ...made.record, secret: made.secret });
      }),
    },
    {
      method: 'GET',
      path: '/v1/counterparties',
      doc: {
        operationId: 'listCounterparties',
        summary: 'The payment processors and exchange operators (never their secrets)',
        tag: 'conversions',
        responses: { 200: 'All of them, by id' },
        responseBody: z.strictObject({ items: z.array(counterpartySchema) }),
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'supplier'], async () =>
        json(200, { items: await d.counterparties.list() }),
      ),
    },
    {
      method: 'POST',
      path: '/v1/callbacks/:counterparty',
      doc: {
        operationId: 'counterpartyCallback',
        summary:
          "A counterparty settles or fails one of its orders: signed with `X-Hearth-Timestamp` and `X-Hearth-Signature: sha256=<HMAC of '<timestamp>.<body>'>`",
        tag: 'conversions',
        public: true,
        body: callbackBody,
        responses: { 200: 'The order as it stands after the callback (a repeat answers the same)' },
        responseBody: orderViewSchema,
        errors: ['CALLBACK_SIGNATURE_INVALID', 'RATE_LIMITED', 'ORDER_NOT_FOUND', 'ORDER_NOT_PENDING', ...askErrors],
      },
      async handler(ctx) {
        await g.limits.checkAuthFailures(ctx.ip);
        const found = await d.counterparties.withSecret(ctx.params.counterparty ?? '');
        try {
          // An unknown counterparty fails the same way as a bad signature: callers learn nothing.
          checkCallbackSignature(found?.secret, ctx.headers, await ctx.body(), d.clock().getTime());
          if (!found) throw new AppError('CALLBACK_SIGNATURE_INVALID', 'X-Hearth-Signature does not verify');
        } catch (err) {
          if (isAppError(err)) await g.limits.chargeAuthFailure(ctx.ip);
          throw err;
        }
        const body = await jsonBody(ctx, callbackBody);
        const o = await d.client.ask(orderRef, body.orderId, {
          kind: 'callback',
          counterparty: found.record.id,
          outcome: body.status,
          reference: body.reference,
          ...(body.reason ? { reason: body.reason } : {}),
        });
        return json(200, orderView(o));
      },
    },
  ];
}
