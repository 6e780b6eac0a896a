import { createHash } from 'node:crypto';
import type { Asker } from '../../actors/runtime/asker.js';
import type { ConversionState } from '../../actors/conversion/index.js';
import { AppError } from '../../errors/index.js';
import { guarded, type Guards } from '../auth/guard.js';
import type { Role } from '../auth/principal.js';
import { accountOf, stepIdOf } from './caller.js';
import { convert, quote } from './service.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody, parseWith, queryObject, type HttpContext } from '../http/context.js';
import { pageOf, pageQuery } from '../http/pagination.js';
import { json, type Reply } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import type { ConversionReads } from './conversion-reads.js';
import { accountView, conversionView, decimal, micro, poolView } from './conversion-view.js';
import {
  accountViewSchema,
  conversionViewSchema,
  convertBody,
  poolViewSchema,
  quoteQuery,
  quoteSchema,
} from './schemas.js';

export interface ConversionDeps {
  client: Asker;
  reads: ConversionReads;
  /** STABLECOIN_SYMBOL: the stablecoin the pool pairs with CARBON. */
  stablecoin: string;
  /** CONVERSION_WAIT_MS: how long a POST waits for its saga to end before answering 202. */
  waitMs: number;
}

/** The saga's answer: 201 completed, its refusal as an error, 202 while it still runs. */
function answer(c: ConversionState, stablecoin: string): Reply {
  const view = conversionView(c, stablecoin);
  if (c.status === 'completed') return json(201, view);
  if (c.failure && (c.status === 'failed' || c.status === 'rejected')) {
    const details = (c.failure.details ?? {}) as Record<string, unknown>;
    // Amounts in the refusal's details are decimals, as in the request.
    const shown = Object.fromEntries(
      Object.entries(details).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? decimal(v) : v]),
    );
    throw new AppError(c.failure.code, c.failure.message, { conversionId: c.id, ...shown });
  }
  return json(202, view, { Location: `/v1/conversions/${c.id}` });
}

function convertRoute(
  g: Guards,
  d: ConversionDeps,
  spec: { direction: 'carbon-to-stable' | 'stable-to-carbon'; role: Role; operationId: string; summary: string },
): RouteSpec {
  const path = `/v1/conversions/${spec.direction}`;
  const [assetIn, assetOut] =
    spec.direction === 'carbon-to-stable' ? ['CARBON', d.stablecoin] : [d.stablecoin, 'CARBON'];
  return {
    method: 'POST',
    path,
    doc: {
      operationId: spec.operationId,
      summary: spec.summary,
      tag: 'conversions',
      body: convertBody,
      idempotencyKey: 'required',
      responses: {
        201: `Completed: ${assetIn} paid in, ${assetOut} received`,
        202: 'Still running after CONVERSION_WAIT_MS: `Location` is where to read it',
      },
      responseBody: conversionViewSchema,
      errors: [
        'IDEMPOTENCY_KEY_REUSED',
        'POOL_NOT_FOUND',
        'INSUFFICIENT_BALANCE',
        'SLIPPAGE',
        'NO_LIQUIDITY',
        ...askErrors,
      ],
    },
    handler: guarded(
      g,
      [spec.role],
      async (ctx: HttpContext, who) => {
        const account = accountOf(who);
        const id = stepIdOf('cv', account, ctx);
        const body = await jsonBody(ctx, convertBody);
        const fingerprint = createHash('sha256')
          .update(`POST ${path}\n`)
          .update(await ctx.body())
          .digest('hex');
        const input = {
          id,
          fingerprint,
          account,
          assetIn,
          amountIn: micro(body.amount),
          minOut: micro(body.minReceive),
        };
        const now = await convert(d, input, d.waitMs);
        return answer(now, d.stablecoin);
      },
      { ownIdempotency: true },
    ),
  };
}

/** Steps 1 and 3 of the token conversion flow, the conversions' reads, balances and the pool. */
export function conversionRoutes(g: Guards, d: ConversionDeps): RouteSpec[] {
  const anyone: Role[] = ['admin', 'implementer', 'regulator', 'supplier', 'household'];
  return [
    convertRoute(g, d, {
      direction: 'carbon-to-stable',
      role: 'supplier',
      operationId: 'convertCarbonToStable',
      summary: 'Convert available CARBON to the stablecoin through the pool (supplier, signed; step 1)',
    }),
    convertRoute(g, d, {
      direction: 'stable-to-carbon',
      role: 'implementer',
      operationId: 'convertStableToCarbon',
      summary: 'Swap the stablecoin for CARBON through the pool (implementer; step 3)',
    }),
    {
      method: 'GET',
      path: '/v1/conversions',
      doc: {
        operationId: 'listConversions',
        summary: "The caller's conversions, newest first",
        tag: 'conversions',
        query: pageQuery,
        responses: { 200: 'A page of conversions' },
        responseBody: pageOf(conversionViewSchema),
        errors: ['VALIDATION_FAILED', 'FORBIDDEN'],
      },
      handler: guarded(g, ['supplier', 'implementer'], async (ctx, who) => {
        const q = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const { items, total } = await d.reads.conversions(accountOf(who), q.limit, q.offset);
        return json(200, {
          items: items.map((c) => conversionView(c, d.stablecoin)),
          total,
          limit: q.limit,
          offset: q.offset,
        });
      }),
    },
    {
      method: 'GET',
      path: '/v1/conversions/:id',
      doc: {
        operationId: 'getConversion',
        summary: 'One conversion (its owner, an admin or a regulator)',
        tag: 'conversions',
        responses: { 200: 'The conversion as it stands' },
        responseBody: conversionViewSchema,
        errors: ['CONVERSION_NOT_FOUND'],
      },
      handler: guarded(g, anyone, async (ctx, who) => {
        const c = await d.reads.conversion(ctx.params.id ?? '');
        const mayRead = who.role === 'admin' || who.role === 'regulator' || (c && c.account === who.did);
        if (!c || !mayRead) throw new AppError('CONVERSION_NOT_FOUND', `no conversion ${ctx.params.id}`);
        return json(200, conversionView(c, d.stablecoin));
      }),
    },
    {
      method: 'GET',
      path: '/v1/accounts/:did',
      doc: {
        operationId: 'getAccount',
        summary: "A party's balances per asset (its own DID, an admin or a regulator)",
        tag: 'conversions',
        responses: { 200: 'Available and held, per asset (none: nothing held yet)' },
        responseBody: accountViewSchema,
        errors: ['FORBIDDEN'],
      },
      handler: guarded(g, anyone, async (ctx, who) => {
        const did = ctx.params.did ?? '';
        if (who.role !== 'admin' && who.role !== 'regulator' && who.did !== did) {
          throw new AppError('FORBIDDEN', "only the account's own DID, an admin or a regulator reads its balances");
        }
        return json(200, accountView(did, await d.reads.account(did)));
      }),
    },
    {
      method: 'GET',
      path: '/v1/pools/:id',
      doc: {
        operationId: 'getPool',
        summary: "A pool's reserves and fee",
        tag: 'conversions',
        responses: { 200: 'The pool' },
        responseBody: poolViewSchema,
        errors: ['POOL_NOT_FOUND'],
      },
      handler: guarded(g, anyone, async (ctx) => {
        const id = ctx.params.id ?? '';
        const p = await d.reads.pool(id);
        if (!p) throw new AppError('POOL_NOT_FOUND', `no pool ${id}`);
        return json(200, poolView(id, p));
      }),
    },
    {
      method: 'GET',
      path: '/v1/pools/:id/quote',
      doc: {
        operationId: 'quotePool',
        summary: 'What an amount would buy from the pool now (to set minReceive)',
        tag: 'conversions',
        query: quoteQuery,
        responses: { 200: 'The quote' },
        responseBody: quoteSchema,
        errors: ['POOL_NOT_FOUND', 'VALIDATION_FAILED'],
      },
      handler: guarded(g, anyone, async (ctx) => {
        const id = ctx.params.id ?? '';
        const q = parseWith(quoteQuery, queryObject(ctx.query), 'query');
        const p = await d.reads.pool(id);
        if (!p) throw new AppError('POOL_NOT_FOUND', `no pool ${id}`);
        const q2 = quote(p, q.assetIn, BigInt(micro(q.amount)));
        if (!q2) throw new AppError('VALIDATION_FAILED', `this pool trades ${p.assets.join(' and ')}`);
        const { assetOut, amountOut: out } = q2;
        return json(200, {
          pool: id,
          assetIn: q.assetIn,
          amountIn: q.amount,
          assetOut,
          amountOut: decimal(String(out)),
          feeBps: p.feeBps,
        });
      }),
    },
  ];
}
