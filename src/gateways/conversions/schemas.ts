import { z } from 'zod';
import { amount } from '../registries/schemas.js';

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

export const quoteQuery = z
  .object({ assetIn: z.string().regex(/^[A-Z][A-Z0-9]{1,11}$/), amount: z.coerce.number().pipe(amount) })
  .strict();

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
