/** One side of a movement: an account's change in one asset, in micro-units (negative: a debit). */
export interface Leg {
  account: string;
  asset: string;
  amount: bigint;
}

/**
 * Accounts that create or destroy value, and may go negative: `mint:<asset>` is debited by what
 * issuance creates, `burn:<asset>` credited by what a conversion to ITMO destroys. Every other
 * account stays at or above zero (docs/design/token-conversion.md).
 */
export const mintAccount = (asset: string): string => `mint:${asset}`;
export const burnAccount = (asset: string): string => `burn:${asset}`;
export const CARBON = 'CARBON';

/** The step id of a redemption's pending credit on the supplier's account (and of its decision). */
export const pendingCreditId = (redemptionId: string): string => `${redemptionId}:pending`;

/** The account of a pool's reserves in ledger movements. */
export const poolAccount = (pool: string): string => `pool:${pool}`;
/** Where a supplier's redeemed CARBON waits for its claim to be accepted. */
export const pendingAccount = (did: string): string => `pending:${did}`;
/** The CARBON a voucher holds, from its issuance until it is redeemed. */
export const voucherAccount = (id: string): string => `voucher:${id}`;

/** Micro-units as the decimal a person reads in a message (`19000000` → `19`). */
export const shown = (micro: string | bigint): string => String(Number(micro) / 1e6);

export const isSystemAccount = (account: string): boolean => /^(mint|burn):/.test(account);

/** Why a movement may not be recorded, or undefined: every asset's legs sum to zero, none is zero. */
export function unbalanced(legs: readonly Leg[]): string | undefined {
  if (legs.length < 2) return 'a movement has two legs at least';
  const sums = new Map<string, bigint>();
  for (const l of legs) {
    if (l.amount === 0n) return `a leg of 0 ${l.asset} for ${l.account}`;
    sums.set(l.asset, (sums.get(l.asset) ?? 0n) + l.amount);
  }
  for (const [asset, sum] of sums) if (sum !== 0n) return `${asset} legs sum to ${sum}, not 0`;
  return undefined;
}

/**
 * Balances per account and asset after the movements, checked as `ledger:verify` will check them:
 * every movement balanced, no account but a system one below zero at any point. Returns the
 * balances, or the index of the first movement that breaks a rule and why.
 */
export function replay(
  movements: ReadonlyArray<readonly Leg[]>,
): { ok: true; balances: Map<string, bigint> } | { ok: false; at: number; reason: string } {
  const balances = new Map<string, bigint>();
  for (const [i, legs] of movements.entries()) {
    const why = unbalanced(legs);
    if (why) return { ok: false, at: i, reason: why };
    for (const l of legs) {
      const key = `${l.account}\u0000${l.asset}`;
      const next = (balances.get(key) ?? 0n) + l.amount;
      if (next < 0n && !isSystemAccount(l.account)) {
        return { ok: false, at: i, reason: `${l.account} would hold ${next} ${l.asset}` };
      }
      balances.set(key, next);
    }
  }
  return { ok: true, balances };
}
