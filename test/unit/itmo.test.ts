import { describe, expect, it } from 'vitest';
import type { ActorContext } from '../../src/actors/runtime/types.js';
import { accountActor, type AccountMessage, type AccountState } from '../../src/conversion/account.js';

const ctx = { key: 'did:key:impl', now: new Date('2026-11-25T10:00:00Z') } as ActorContext;

function run(messages: AccountMessage[]): { state: AccountState | undefined; effects: number; refused: string[] } {
  let state: AccountState | undefined;
  let effects = 0;
  const refused: string[] = [];
  for (const m of messages) {
    const d = accountActor.decide(state, accountActor.messages.parse(m), ctx);
    if (d.rejection) refused.push(d.rejection.code);
    else state = d.state;
    effects += d.effects?.length ?? 0;
  }
  return { state, effects, refused };
}

const funded: AccountMessage = { kind: 'credit', id: 'c', asset: 'CARBON', amount: '50000000' };
const claim = (id: string, amount = '20000000'): AccountMessage => ({ kind: 'claim-itmo', id, amount });
const certify = (id: string, claims: string[]): AccountMessage => ({
  kind: 'request-certificate',
  id,
  claims,
  registry: 'ZNR',
  serialRange: { from: 'A1', to: 'A20' },
  agreement: { id: 'MOPA-1', buyer: 'Buyer' },
  fiatReceived: { amount: 600, currency: 'USD' },
});
const decide = (id: string, outcome: 'approved' | 'rejected'): AccountMessage => ({
  kind: 'decide-certificate',
  id,
  outcome,
  by: 'did:key:regulator',
});

describe('ITMO claims and certificates on an account', () => {
  it('burns CARBON once per claim id, and never more than is available', () => {
    const { state, effects, refused } = run([funded, claim('i1'), claim('i1'), claim('i2', '40000000')]);
    expect(state?.balances.CARBON).toBe('30000000');
    expect(Object.keys(state?.itmo?.claims ?? {})).toEqual(['i1']);
    expect(effects).toBe(1);
    expect(refused).toEqual(['INSUFFICIENT_BALANCE']);
  });

  it('commits claims to one certificate at a time, certifies them on approval, frees them on rejection', () => {
    const { state, refused } = run([
      funded,
      claim('i1'),
      claim('i2', '10000000'),
      certify('cert1', ['i1']),
      certify('cert2', ['i1', 'i2']),
      decide('cert1', 'approved'),
      decide('cert1', 'approved'),
      decide('cert1', 'rejected'),
      certify('cert3', ['i2']),
      decide('cert3', 'rejected'),
      certify('cert4', ['i2']),
      decide('nope', 'approved'),
    ]);
    expect(refused).toEqual(['ITMO_CLAIM_UNAVAILABLE', 'ITMO_CERTIFICATE_DECIDED', 'ITMO_CERTIFICATE_NOT_FOUND']);
    expect(state?.itmo?.claims.i1).toMatchObject({ status: 'certified', certificate: 'cert1' });
    expect(state?.itmo?.claims.i2).toMatchObject({ status: 'certifying', certificate: 'cert4' });
    expect(state?.itmo?.certificates.cert3?.status).toBe('rejected');
    expect(state?.itmo?.certificates.cert1).toMatchObject({ status: 'approved', units: '20000000' });
  });
});
