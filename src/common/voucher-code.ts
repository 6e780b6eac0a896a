import { createHash } from 'node:crypto';

/**
 * Damm's quasigroup (order 10, weakly totally anti-symmetric): a check digit over it catches
 * every single mistyped digit and every swap of two adjacent digits, the two slips people make
 * on a keypad most.
 */
const DAMM = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2],
  [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
  [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8],
  [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4],
  [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
  [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
];

function interim(digits: string): number {
  let at = 0;
  for (const d of digits) at = DAMM[at]![d.charCodeAt(0) - 48]!;
  return at;
}

/** A voucher code: 10 digits, the first not 0 (no spreadsheet drops it), the last Damm's check. */
const VOUCHER_CODE = /^[1-9][0-9]{9}$/;

/** Whether `code` is a voucher code with its check digit right (it may still be unknown). */
export function isVoucherCode(code: string): boolean {
  return VOUCHER_CODE.test(code) && interim(code) === 0;
}

/**
 * The `attempt`-th candidate code of a voucher: 9 digits from a hash of its id, then the check
 * digit. Derived, so that assigning twice (a retried issue, two gateways) proposes the same code;
 * a candidate another voucher already holds is passed over for the next (gateways/voucher/voucher-codes.ts).
 */
export function candidateCode(voucherId: string, attempt: number): string {
  const h = createHash('sha256').update(`hearth.code\u0000${voucherId}\u0000${attempt}`).digest();
  const body = String(100_000_000 + (h.readUInt32BE(0) % 900_000_000));
  return `${body}${interim(body)}`;
}
