import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteOut, swap } from '../../../../src/actors/pool/pool-math.js';

/** Reserves from 1 micro-unit to a billion units; amounts up to a tenth of that. */
const reserve = fc.bigInt({ min: 1n, max: 10n ** 15n });
const amount = fc.bigInt({ min: 1n, max: 10n ** 14n });
const fee = fc.integer({ min: 0, max: 1_000 });

describe('the constant-product pool', () => {
  it('quotes the textbook figure: 100 in against 1,000/1,000 at 0.30% buys 90.6610893880', () => {
    const micro = 10n ** 6n;
    expect(quoteOut({ in: 1_000n * micro, out: 1_000n * micro }, 100n * micro, 30)).toBe(90_661_089n);
  });

  it('never lets the product of the reserves shrink, nor pays out the whole reserve', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, fee, (rin, rout, x, f) => {
        const s = swap({ in: rin, out: rout }, x, 0n, f);
        if (!s.ok) return s.reason === 'no_liquidity' && s.quote === 0n;
        return s.amountOut < rout && s.reserves.in * s.reserves.out >= rin * rout && s.reserves.out > 0n;
      }),
    );
  });

  it('pays no more for a split order than for the whole (no gain from splitting)', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, amount, fee, (rin, rout, a, b, f) => {
        const whole = quoteOut({ in: rin, out: rout }, a + b, f);
        const first = swap({ in: rin, out: rout }, a, 0n, f);
        const firstOut = first.ok ? first.amountOut : 0n;
        const after = first.ok ? first.reserves : { in: rin + a, out: rout };
        return firstOut + quoteOut(after, b, f) <= whole;
      }),
    );
  });

  it('refuses a fill below the minimum, changing nothing', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, fee, (rin, rout, x, f) => {
        const quote = quoteOut({ in: rin, out: rout }, x, f);
        fc.pre(quote > 0n);
        const refused = swap({ in: rin, out: rout }, x, quote + 1n, f);
        const filled = swap({ in: rin, out: rout }, x, quote, f);
        return !refused.ok && refused.reason === 'slippage' && refused.quote === quote && filled.ok;
      }),
    );
  });

  it('refuses a fee outside 0 to 99.99%', () => {
    expect(() => quoteOut({ in: 10n, out: 10n }, 1n, 10_000)).toThrow(RangeError);
    expect(() => quoteOut({ in: 10n, out: 10n }, 1n, -1)).toThrow(RangeError);
  });
});
