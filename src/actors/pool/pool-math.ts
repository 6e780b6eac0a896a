/**
 * A constant-product pool's arithmetic (x·y = k), in integer micro-units as bigint: the product
 * of two reserves passes 2^53 long before the reserves do, and a pool must never round in the
 * trader's favour. The fee is charged on the input and stays in the pool, so k grows with every
 * swap; the output is rounded down, so k never shrinks.
 */
export interface Reserves {
  /** Reserve of the asset paid in. */
  in: bigint;
  /** Reserve of the asset paid out. */
  out: bigint;
}

/** Basis points: 30 is 0.30%. */
const BPS = 10_000n;

/** What `amountIn` buys from the pool now, after its fee. 0 when it buys nothing. */
export function quoteOut(r: Reserves, amountIn: bigint, feeBps: number): bigint {
  if (amountIn <= 0n || r.in <= 0n || r.out <= 0n) return 0n;
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= 10_000) throw new RangeError(`fee ${feeBps} bps`);
  const inAfterFee = amountIn * (BPS - BigInt(feeBps));
  return (inAfterFee * r.out) / (r.in * BPS + inAfterFee);
}

export type Swap =
  | { ok: true; amountOut: bigint; reserves: Reserves }
  | { ok: false; reason: 'no_liquidity' | 'slippage'; quote: bigint };

/**
 * Swaps `amountIn` for at least `minOut`, or refuses: a fill worse than the trader asked for is
 * no fill (the request's minimum protects it from the swaps ahead of it).
 */
export function swap(r: Reserves, amountIn: bigint, minOut: bigint, feeBps: number): Swap {
  const amountOut = quoteOut(r, amountIn, feeBps);
  if (amountOut <= 0n) return { ok: false, reason: 'no_liquidity', quote: amountOut };
  if (amountOut < minOut) return { ok: false, reason: 'slippage', quote: amountOut };
  return { ok: true, amountOut, reserves: { in: r.in + amountIn, out: r.out - amountOut } };
}
