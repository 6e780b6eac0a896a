/**
 * Amounts travel as JSON numbers with at most 6 decimal places and are kept as integer
 * micro-units, so balances never drift the way binary fractions do (0.1 + 0.2).
 */
export const toMicro = (n: number): number => Math.round(n * 1e6);
export const fromMicro = (m: number): number => m / 1e6;
