import { z } from 'zod';
import { amount } from '../http/fields.js';
import { asset } from '../../common/money-fields.js';
import { exchangeMicro, payoutFiat } from './order-amounts.js';

/** A conversion request: what to pay in, and the least to receive (a worse fill is refused). */
export const convertBody = z
  .object({
    amount,
    /** The least the caller accepts, after the pool's fee; 0 accepts any fill. */
    minReceive: z
      .number()
      .min(0)
      .max(1e12)
      .refine((n) => Math.round(n * 1e6) / 1e6 === n, 'has more than 6 decimal places'),
  })
  .strict();

export const quoteQuery = z.object({ assetIn: asset, amount: z.coerce.number().pipe(amount) }).strict();

const failure = z.strictObject({
  code: z.enum(['SLIPPAGE', 'INSUFFICIENT_BALANCE', 'NO_LIQUIDITY']),
  message: z.string(),
  details: z.unknown().optional(),
});

/** A conversion as the API shows it: amounts as decimals, as vouchers show theirs. */
export const conversionViewSchema = z.strictObject({
  id: z.string(),
  direction: z.enum(['carbon-to-stable', 'stable-to-carbon']),
  status: z.enum(['reserving', 'swapping', 'settling', 'completed', 'compensating', 'failed', 'rejected']),
  accountDid: z.string(),
  pool: z.string(),
  assetIn: z.string(),
  amountIn: z.number(),
  assetOut: z.string(),
  minReceive: z.number(),
  /** What the pool paid (once filled). */
  amountOut: z.number().optional(),
  /** Why it did not complete (failed, rejected). */
  failure: failure.optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const accountViewSchema = z.strictObject({
  did: z.string(),
  /**
   * Per asset: what can be spent now, what running conversions hold, and what waits on a decision
   * (a supplier's redeemed CARBON until a regulator accepts its claim).
   */
  balances: z.record(z.string(), z.strictObject({ available: z.number(), held: z.number(), pending: z.number() })),
});

export const poolViewSchema = z.strictObject({
  id: z.string(),
  assets: z.tuple([z.string(), z.string()]),
  reserves: z.record(z.string(), z.number()),
  feeBps: z.number().int(),
});

export const quoteSchema = z.strictObject({
  pool: z.string(),
  assetIn: z.string(),
  amountIn: z.number(),
  assetOut: z.string(),
  /** What the amount would buy now, after the fee; swaps ahead of yours move it. */
  amountOut: z.number(),
  feeBps: z.number().int(),
});

const currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as ZMW');
const counterpartyId = z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lower-case letters, digits and dashes');

/**
 * A counterparty's quote: local currency per unit of the stablecoin (a US dollar coin unless
 * STABLECOIN_SYMBOL says otherwise), a money field like any amount: at most 6 decimal places.
 * Currencies run from about 0.3 a dollar (the Kuwaiti dinar) to about 10^5 (the dong, the
 * Lebanese pound); 0.0001 to 1,000,000 leaves room both ways and refuses what is surely a
 * mistake, such as 0.0000001, which made 100 ZMW into 1,000,000,000 of the stablecoin.
 */
const rate = z
  .number()
  .min(0.0001)
  .max(1_000_000)
  .refine((n) => Math.round(n * 1e6) / 1e6 === n, 'has more than 6 decimal places');

/** What an order's rate makes of its amount must be an amount too: more than nothing, at most 1e9. */
function checkMade(made: number, what: string, ctx: z.RefinementCtx): boolean {
  if (amount.safeParse(made).success) return true;
  ctx.addIssue({
    code: 'custom',
    path: ['rate'],
    message: `${what} would be ${made}: it must be more than 0 and at most 1000000000`,
  });
  return false;
}

/** Step 2: a supplier's stablecoin paid out in local currency by a payment processor. */
export const payoutBody = z
  .object({
    processor: counterpartyId,
    /** Stablecoin to pay out. */
    amount,
    currency,
    rate: rate.describe(
      'Local currency per unit of the stablecoin, as the processor quoted it: 0.0001 to 1,000,000, at most 6 ' +
        'decimal places; amount × rate, to the cent, must be more than 0 and at most 1,000,000,000',
    ),
  })
  .strict()
  .transform((b, ctx) => {
    const fiatAmount = payoutFiat(b.amount, b.rate);
    return checkMade(fiatAmount, 'amount × rate, to the cent,', ctx) ? { ...b, fiatAmount } : z.NEVER;
  });

/** Step 6: an implementer's fiat converted to the stablecoin by a regulated exchange operator. */
export const exchangeBody = z
  .object({
    exchange: counterpartyId,
    fiatAmount: amount,
    currency,
    rate: rate.describe(
      'Fiat per unit of the stablecoin, as the operator quoted it: 0.0001 to 1,000,000, at most 6 decimal ' +
        'places; fiatAmount / rate, rounded down to a micro-unit, must be more than 0 and at most 1,000,000,000',
    ),
  })
  .strict()
  .transform((b, ctx) => {
    const stable = exchangeMicro(b.fiatAmount, b.rate);
    return checkMade(Number(stable) / 1e6, 'fiatAmount / rate, rounded down to a micro-unit,', ctx)
      ? { ...b, stable: String(stable) }
      : z.NEVER;
  });

export const counterpartyBody = z
  .object({
    id: counterpartyId,
    kind: z.enum(['payment-processor', 'exchange-operator']),
    name: z.string().trim().min(1).max(200),
  })
  .strict();

export const counterpartySchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['payment-processor', 'exchange-operator']),
  name: z.string(),
  createdAt: z.iso.datetime(),
});

/** What a counterparty's callback says about one of its orders. */
export const callbackBody = z
  .object({
    orderId: z.string().min(1).max(128),
    status: z.enum(['settled', 'failed']),
    /** The counterparty's own reference for the transfer. */
    reference: z.string().trim().min(1).max(200),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const orderViewSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['payout', 'exchange']),
  status: z.enum(['reserving', 'pending', 'settled', 'failed', 'rejected']),
  accountDid: z.string(),
  /** The payment processor (payout) or exchange operator (exchange). */
  counterparty: z.string(),
  asset: z.string(),
  /** Stablecoin paid out, or credited once the operator confirms. */
  amount: z.number(),
  fiat: z.strictObject({ amount: z.number(), currency: z.string(), rate: z.number() }),
  reference: z.string().optional(),
  failure: z
    .strictObject({
      code: z.enum(['INSUFFICIENT_BALANCE', 'COUNTERPARTY_FAILED']),
      message: z.string(),
      details: z.unknown().optional(),
    })
    .optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
