import { describe, expect, it } from 'vitest';
import { MovementCheck } from '../../../src/ledger/movement-check.js';

const entry = (movement: unknown): string => JSON.stringify({ entryId: '1', payload: { type: 't', movement } });
const leg = (account: string, asset: string, amount: string) => ({ account, asset, amount });

describe('the ledger’s money check', () => {
  it('totals what was minted, burned and held per asset from balanced movements', () => {
    const check = new MovementCheck();
    expect(
      check.apply(entry([leg('mint:CARBON', 'CARBON', '-100'), leg('voucher:v', 'CARBON', '100')])),
    ).toBeUndefined();
    expect(check.apply(entry([leg('voucher:v', 'CARBON', '-30'), leg('pending:s', 'CARBON', '30')]))).toBeUndefined();
    expect(check.apply(entry([leg('pending:s', 'CARBON', '-10'), leg('burn:CARBON', 'CARBON', '10')]))).toBeUndefined();
    expect(check.apply(JSON.stringify({ payload: { type: 'voucher.revoked' } }))).toBeUndefined();
    expect(check.totals()).toEqual({ CARBON: { minted: '100', burned: '10', held: '90' } });
  });

  it('names a movement that does not balance, one that overdraws a party, and a malformed one', () => {
    const check = new MovementCheck();
    expect(check.apply(entry([leg('mint:USDC', 'USDC', '-5'), leg('did:a', 'USDC', '4')]))).toMatch(/does not balance/);
    expect(check.apply(entry([leg('did:a', 'USDC', '-1'), leg('did:b', 'USDC', '1')]))).toMatch(/did:a would hold -1/);
    expect(check.apply(entry('x'))).toMatch(/not a list/);
    expect(check.apply(entry([leg('did:a', 'USDC', '1.5'), leg('did:b', 'USDC', '-1.5')]))).toMatch(/whole number/);
    expect(check.apply(entry([{ account: 'did:a' }]))).toMatch(/malformed/);
  });
});
