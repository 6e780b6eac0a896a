import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unbalanced, type Leg } from '../../../src/common/movement.js';
import { poolActor, type PoolMessage } from '../../../src/actors/pool/index.js';
import { decider } from '../../support/decider.js';
const seed: PoolMessage = {
  kind: 'deposit',
  id: 'seed',
  deposits: { CARBON: '1000000000', USDC: '500000000' },
  feeBps: 30,
};

/** A trader's swap, asked directly (no saga to tell). */
function swapOf(id: string, assetIn: string, amountIn: string, minOut: string): PoolMessage {
  return { kind: 'swap', id, account: 'did:key:trader', assetIn, amountIn, minOut };
}

/** A pool driven as the runtime would (its remembered swaps and deposits are facts). */
const newPool = () => decider(poolActor, { key: 'p1' });
const seeded = () => {
  const p = newPool();
  p.send(seed);
  return p;
};

describe('a pool', () => {
  it('fills a swap at its quote, and refuses one below the minimum, remembering both', () => {
    const p = seeded();
    const filled = p.send(swapOf('x1', 'CARBON', '100000000', '1'));
    expect(filled.reply).toMatchObject({ filled: true, assetOut: 'USDC', amountOut: '45330544' });
    const after = p.state;
    const refused = p.send(swapOf('x2', 'CARBON', '1000000', '900000'));
    expect(refused.reply).toMatchObject({ filled: false, reason: 'slippage' });
    expect(p.state).toEqual(after);
    // Asked again: the same answers, nothing applied twice, nothing written.
    const again = p.send(swapOf('x1', 'CARBON', '100000000', '1'));
    expect(again.reply).toEqual(filled.reply);
    expect(again.facts ?? []).toEqual([]);
    expect(p.state).toEqual(after);
    expect(p.send(swapOf('x2', 'CARBON', '1000000', '0')).reply).toEqual(refused.reply);
    // Its snapshot holds no outcome: they are facts, one per swap.
    expect(Object.keys(p.state ?? {}).sort()).toEqual(['assets', 'feeBps', 'reserves']);
  });

  it('refuses swaps before it is seeded and of an asset it does not trade', () => {
    expect(newPool().send(swapOf('x', 'CARBON', '1', '0')).rejection?.code).toBe('NOT_FOUND');
    expect(seeded().send(swapOf('x', 'ITMO', '1', '0')).rejection?.code).toBe('VALIDATION_FAILED');
    const oneAsset: PoolMessage = { kind: 'deposit', id: 'd0', deposits: { CARBON: '1' }, feeBps: 30 };
    expect(newPool().send(oneAsset).rejection?.code).toBe('VALIDATION_FAILED');
  });

  it('adds a later deposit to its reserves once per id, keeping its fee', () => {
    const p = seeded();
    const more: PoolMessage = { kind: 'deposit', id: 'd2', deposits: { CARBON: '10', USDC: '5' }, feeBps: 100 };
    p.send(more);
    const added = p.state;
    expect(added).toMatchObject({ reserves: { CARBON: '1000000010', USDC: '500000005' }, feeBps: 30 });
    expect(p.send(more).facts ?? []).toEqual([]);
    expect(p.send(seed).facts ?? []).toEqual([]);
    expect(p.state).toEqual(added);
  });

  it('keeps its reserves equal to the seed plus what came in less what went out, and k never shrinks', () => {
    const swapArb = fc.record({
      id: fc.integer({ min: 1, max: 30 }),
      assetIn: fc.constantFrom('CARBON', 'USDC'),
      amountIn: fc.bigInt({ min: 1n, max: 10n ** 9n }),
      minOut: fc.bigInt({ min: 0n, max: 10n ** 8n }),
    });
    fc.assert(
      fc.property(fc.array(swapArb, { maxLength: 50 }), (swaps) => {
        const p = seeded();
        let s = p.state!;
        const net = { CARBON: 1_000_000_000n, USDC: 500_000_000n };
        const seen = new Set<string>();
        for (const w of swaps) {
          const before = BigInt(s.reserves.CARBON!) * BigInt(s.reserves.USDC!);
          const d = p.send({
            kind: 'swap',
            id: `s${w.id}`,
            account: 'did:key:trader',
            assetIn: w.assetIn,
            amountIn: String(w.amountIn),
            minOut: String(w.minOut),
          });
          s = p.state!;
          const out = d.reply as { filled: boolean; assetOut?: 'CARBON' | 'USDC'; amountOut?: string };
          if (out.filled && !seen.has(`s${w.id}`)) {
            net[w.assetIn] += w.amountIn;
            net[out.assetOut!] -= BigInt(out.amountOut!);
          }
          seen.add(`s${w.id}`);
          if (BigInt(s.reserves.CARBON!) * BigInt(s.reserves.USDC!) < before) return false;
        }
        return BigInt(s.reserves.CARBON!) === net.CARBON && BigInt(s.reserves.USDC!) === net.USDC;
      }),
    );
  });

  it('writes a fill as one balanced movement on the ledger, and tells a saga its outcome each time it asks', () => {
    const p = seeded();
    const swap: PoolMessage = {
      kind: 'swap',
      id: 'c1:swap',
      account: 'did:key:trader',
      assetIn: 'USDC',
      amountIn: '2000000',
      minOut: '1',
      replyTo: { type: 'conversion', key: 'c1' },
    };
    const first = p.send(swap);
    const after = p.state;
    const [entry, told] = first.effects ?? [];
    const payload = entry?.payload as {
      type: string;
      movement: Array<{ account: string; asset: string; amount: string }>;
    };
    expect(payload.type).toBe('conversion.swapped');
    const legs: Leg[] = payload.movement.map((l) => ({ ...l, amount: BigInt(l.amount) }));
    expect(unbalanced(legs)).toBeUndefined();
    expect(legs).toContainEqual({ account: 'pool:p1', asset: 'USDC', amount: 2_000_000n });
    expect(told).toEqual({
      topic: 'tell',
      payload: { type: 'conversion', key: 'c1', message: { kind: 'swapped', id: 'c1:swap', outcome: first.reply } },
    });
    // Asked again: the same outcome told again, and no second movement.
    const again = p.send(swap);
    expect(again.effects).toEqual([told]);
    expect(p.state).toEqual(after);
  });
});
