/**
 * What a payout's or an exchange order's quoted rate makes of its amount, worked out in integers:
 * both the amount and the rate have at most 6 decimal places (their schemas say so), so as
 * micro-units their product and quotient are exact, where binary fractions are not (0.3 / 0.1 is
 * 2.9999999999999996, which rounded down would lose a micro-unit).
 */
const microOf = (n: number): bigint => BigInt(Math.round(n * 1e6));

/** A payout's local currency: amount × rate, to the cent (half up), as processors pay it. */
export function payoutFiat(amount: number, rate: number): number {
  // micro × micro is in 1e-12 units; a cent is 1e10 of them.
  const cents = (microOf(amount) * microOf(rate) + 5_000_000_000n) / 10_000_000_000n;
  return Number(cents) / 100;
}

/** An exchange order's stablecoin, in micro-units: fiat / rate, rounded down to a micro-unit. */
export function exchangeMicro(fiatAmount: number, rate: number): bigint {
  return (microOf(fiatAmount) * 1_000_000n) / microOf(rate);
}
