import { isSystemAccount, unbalanced, type Leg } from '../common/movement.js';

/** Per asset: what issuance minted, what was burned, and what every other account holds. */
export type AssetTotals = Record<string, { minted: string; burned: string; held: string }>;

/**
 * The money invariants of the token conversion flow, recomputed from the ledger's entries in
 * their order (docs/design/token-conversion.md): every movement balances per asset, no account
 * but `mint:`/`burn:` ever goes below zero, and so, at every block, what all other accounts hold
 * of an asset is what was minted less what was burned. Entries without a movement pass.
 */
export class MovementCheck {
  private readonly balances = new Map<string, bigint>();

  /** Applies one entry's body; answers why it breaks an invariant, or undefined. */
  apply(body: string): string | undefined {
    const legs = movementOf(body);
    if (legs === undefined) return undefined;
    if (typeof legs === 'string') return legs;
    const why = unbalanced(legs);
    if (why) return `its movement does not balance: ${why}`;
    for (const l of legs) {
      const key = `${l.account}\u0000${l.asset}`;
      const next = (this.balances.get(key) ?? 0n) + l.amount;
      if (next < 0n && !isSystemAccount(l.account)) return `${l.account} would hold ${next} micro-units of ${l.asset}`;
      this.balances.set(key, next);
    }
    return undefined;
  }

  totals(): AssetTotals {
    const out: AssetTotals = {};
    const sums = new Map<string, { minted: bigint; burned: bigint; held: bigint }>();
    for (const [key, v] of this.balances) {
      const [account, asset] = key.split('\u0000') as [string, string];
      const t = sums.get(asset) ?? { minted: 0n, burned: 0n, held: 0n };
      if (account.startsWith('mint:')) t.minted -= v;
      else if (account.startsWith('burn:')) t.burned += v;
      else t.held += v;
      sums.set(asset, t);
    }
    for (const [asset, t] of sums)
      out[asset] = { minted: String(t.minted), burned: String(t.burned), held: String(t.held) };
    return out;
  }
}

/** The entry's movement as legs; a string when it is malformed; undefined when it has none. */
function movementOf(body: string): Leg[] | string | undefined {
  let movement: unknown;
  try {
    movement = (JSON.parse(body) as { payload?: { movement?: unknown } }).payload?.movement;
  } catch {
    return undefined; // the chain check reports a body that is not JSON
  }
  if (movement === undefined) return undefined;
  if (!Array.isArray(movement)) return 'its movement is not a list of legs';
  const legs: Leg[] = [];
  for (const l of movement as Array<Record<string, unknown>>) {
    if (typeof l?.account !== 'string' || typeof l.asset !== 'string' || typeof l.amount !== 'string') {
      return 'a leg of its movement is malformed';
    }
    if (!/^-?[0-9]{1,25}$/.test(l.amount)) return `a leg's amount ${l.amount} is not a whole number of micro-units`;
    legs.push({ account: l.account, asset: l.asset, amount: BigInt(l.amount) });
  }
  return legs;
}
