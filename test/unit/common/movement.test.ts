import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  burnAccount,
  isSystemAccount,
  mintAccount,
  replay,
  unbalanced,
  type Leg,
} from '../../../src/common/movement.js';

const parties = ['did:supplier:1', 'did:supplier:2', 'did:implementer:1', 'pool:1'];
const assets = ['CARBON', 'USDC'];

/** A random history that only ever moves what an account holds: mints, transfers, burns. */
const history = fc.array(
  fc.record({
    kind: fc.constantFrom('mint', 'transfer', 'burn'),
    from: fc.constantFrom(...parties),
    to: fc.constantFrom(...parties),
    asset: fc.constantFrom(...assets),
    share: fc.integer({ min: 1, max: 100 }),
    size: fc.bigInt({ min: 1n, max: 10n ** 12n }),
  }),
  { maxLength: 60 },
);

describe('movements', () => {
  it('are balanced when every asset sums to zero over two legs or more', () => {
    const legs = (amounts: bigint[]): Leg[] =>
      amounts.map((amount, i) => ({ account: `a${i}`, asset: 'CARBON', amount }));
    expect(unbalanced(legs([-5n, 5n]))).toBeUndefined();
    expect(unbalanced(legs([-5n, 2n, 3n]))).toBeUndefined();
    expect(unbalanced(legs([-5n, 4n]))).toMatch(/sum to -1/);
    expect(unbalanced(legs([5n]))).toMatch(/two legs/);
    expect(unbalanced(legs([0n, 0n]))).toMatch(/leg of 0/);
  });

  it('refuse a debit below zero, but for the mint and burn accounts', () => {
    const r = replay([
      [
        { account: mintAccount('CARBON'), asset: 'CARBON', amount: -10n },
        { account: 'did:s', asset: 'CARBON', amount: 10n },
      ],
      [
        { account: 'did:s', asset: 'CARBON', amount: -11n },
        { account: 'did:t', asset: 'CARBON', amount: 11n },
      ],
    ]);
    expect(r).toMatchObject({ ok: false, at: 1, reason: 'did:s would hold -1 CARBON' });
  });

  it('keep, per asset, the sum of all balances equal to minted minus burned, after any history', () => {
    fc.assert(
      fc.property(history, (steps) => {
        const movements: Leg[][] = [];
        const held = new Map<string, bigint>();
        const balance = (a: string, asset: string) => held.get(`${a}/${asset}`) ?? 0n;
        const move = (legs: Leg[]) => {
          movements.push(legs);
          for (const l of legs) held.set(`${l.account}/${l.asset}`, balance(l.account, l.asset) + l.amount);
        };
        let minted = new Map<string, bigint>();
        let burned = new Map<string, bigint>();
        for (const s of steps) {
          const part = (balance(s.from, s.asset) * BigInt(s.share)) / 100n;
          if (s.kind === 'mint') {
            move([
              { account: mintAccount(s.asset), asset: s.asset, amount: -s.size },
              { account: s.to, asset: s.asset, amount: s.size },
            ]);
            minted = new Map(minted).set(s.asset, (minted.get(s.asset) ?? 0n) + s.size);
          } else if (part > 0n && s.kind === 'transfer' && s.from !== s.to) {
            move([
              { account: s.from, asset: s.asset, amount: -part },
              { account: s.to, asset: s.asset, amount: part },
            ]);
          } else if (part > 0n && s.kind === 'burn') {
            move([
              { account: s.from, asset: s.asset, amount: -part },
              { account: burnAccount(s.asset), asset: s.asset, amount: part },
            ]);
            burned = new Map(burned).set(s.asset, (burned.get(s.asset) ?? 0n) + part);
          }
        }
        const r = replay(movements);
        if (!r.ok) return false;
        for (const asset of assets) {
          let parties = 0n;
          for (const [key, v] of r.balances) {
            const [account, a] = key.split('\u0000');
            if (a === asset && !isSystemAccount(account!)) {
              if (v < 0n) return false;
              parties += v;
            }
          }
          if (parties !== (minted.get(asset) ?? 0n) - (burned.get(asset) ?? 0n)) return false;
        }
        return true;
      }),
    );
  });
});
