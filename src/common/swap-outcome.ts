import { z } from 'zod';

/** What a pool answers a swap: the fill, or why it refused and what it would have paid. */
export const swapOutcome = z.discriminatedUnion('filled', [
  z.strictObject({
    filled: z.literal(true),
    assetIn: z.string(),
    amountIn: z.string(),
    assetOut: z.string(),
    amountOut: z.string(),
  }),
  z.strictObject({ filled: z.literal(false), reason: z.enum(['slippage', 'no_liquidity']), quote: z.string() }),
]);

export type SwapOutcome = z.infer<typeof swapOutcome>;

/** Where a saga step's answer goes: the saga's actor, a conversion or an order (a tell through the outbox). */
export const replyTo = z.strictObject({ type: z.enum(['conversion', 'order']), key: z.string().min(1).max(200) });
