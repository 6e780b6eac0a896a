/**
 * Redis stream ids are `<ms>-<seq>`; they compare as a pair of integers, not as strings. Both
 * parts are unsigned decimals (seq up to 2^64), so they are compared as digit strings, shorter
 * first, without BigInt (this runs twice for every message a worker applies).
 */
export function compareStreamIds(a: string, b: string): number {
  const ia = a.indexOf('-');
  const ib = b.indexOf('-');
  const ms = compareDecimals(ia < 0 ? a : a.slice(0, ia), ib < 0 ? b : b.slice(0, ib));
  if (ms !== 0) return ms;
  return compareDecimals(ia < 0 ? '0' : a.slice(ia + 1), ib < 0 ? '0' : b.slice(ib + 1));
}

/** Compares two unsigned decimal integers written as digits (leading zeros allowed). */
function compareDecimals(x: string, y: string): number {
  const a = canonical(x);
  const b = canonical(y);
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonical(digits: string): string {
  if (digits === '') return '0';
  return digits.length > 1 && digits.charCodeAt(0) === 48 ? digits.replace(/^0+(?=\d)/, '') : digits;
}

export function isStreamId(value: string): boolean {
  return /^\d{1,20}-\d{1,20}$/.test(value);
}
