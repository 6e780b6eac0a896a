import type { z } from 'zod';
import type { ConversionState } from '../../actors/conversion/index.js';
import type { AccountView } from '../../actors/account/index.js';
import type { OrderState } from '../../actors/order/index.js';
import type { accountViewSchema, conversionViewSchema, orderViewSchema, poolViewSchema } from './schemas.js';
import type { PoolRow } from './conversion-reads.js';

/** Micro-units (a decimal string) as the decimal amount the API shows. */
export const decimal = (micro: string): number => Number(micro) / 1e6;
/** A decimal amount of at most 6 places (checked by its schema) as micro-units. */
export const micro = (n: number): string => String(Math.round(n * 1e6));

/** What a client sees of a saga: its amounts in decimals, its direction by what it pays in. */
export function conversionView(c: ConversionState, stablecoin: string): z.infer<typeof conversionViewSchema> {
  const toStable = c.assetIn === 'CARBON';
  return {
    id: c.id,
    direction: toStable ? 'carbon-to-stable' : 'stable-to-carbon',
    status: c.status,
    accountDid: c.account,
    pool: c.pool,
    assetIn: c.assetIn,
    amountIn: decimal(c.amountIn),
    assetOut: c.fill?.assetOut ?? (toStable ? stablecoin : 'CARBON'),
    minReceive: decimal(c.minOut),
    ...(c.fill ? { amountOut: decimal(c.fill.amountOut) } : {}),
    ...(c.failure ? { failure: c.failure } : {}),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function accountView(did: string, a: AccountView): z.infer<typeof accountViewSchema> {
  const balances: z.infer<typeof accountViewSchema>['balances'] = {};
  for (const [asset, b] of Object.entries(a.balances)) {
    balances[asset] = { available: decimal(b.available), held: decimal(b.held), pending: decimal(b.pending ?? '0') };
  }
  return { did, balances };
}

export function poolView(id: string, p: PoolRow): z.infer<typeof poolViewSchema> {
  return {
    id,
    assets: p.assets,
    reserves: Object.fromEntries(Object.entries(p.reserves).map(([a, r]) => [a, decimal(r)])),
    feeBps: p.feeBps,
  };
}

/** A payout or an exchange order as the API shows it. */
export function orderView(o: OrderState): z.infer<typeof orderViewSchema> {
  const failure =
    o.failure?.code === 'INSUFFICIENT_BALANCE'
      ? {
          ...o.failure,
          details: { asset: o.asset, available: decimal((o.failure.details as { available: string }).available) },
        }
      : o.failure;
  return {
    id: o.id,
    kind: o.kind,
    status: o.status,
    accountDid: o.account,
    counterparty: o.counterparty,
    asset: o.asset,
    amount: decimal(o.amount),
    fiat: o.fiat,
    ...(o.reference ? { reference: o.reference } : {}),
    ...(failure ? { failure } : {}),
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}
