import { describe, expect, it } from 'vitest';
import { accountActor, type AccountMessage } from '../../../../src/actors/account/index.js';
import { itmoCertificateFact, itmoClaimFact } from '../../../../src/actors/account/facts.js';
import { decider } from '../../../support/decider.js';

function run(messages: AccountMessage[]) {
  const account = decider(accountActor, { key: 'did:key:impl' });
  let effects = 0;
  const refused: string[] = [];
  for (const m of messages) {
    const d = account.send(m);
    if (d.rejection) refused.push(d.rejection.code);
    effects += d.effects?.length ?? 0;
  }
  const fact = (id: string) => account.facts.get(id) as Record<string, unknown> | undefined;
  return { state: account.state, effects, refused, fact, account };
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
const decide = (id: string, outcome: 'approved' | 'rejected', claims: string[]): AccountMessage => ({
  kind: 'decide-certificate',
  id,
  outcome,
  by: 'did:key:regulator',
  claims,
});

describe('ITMO claims and certificates on an account', () => {
  it('burns CARBON once per claim id, and never more than is available', () => {
    const { state, effects, refused, account } = run([funded, claim('i1'), claim('i1'), claim('i2', '40000000')]);
    expect(state?.balances.CARBON).toBe('30000000');
    expect([...account.facts.keys()].filter((k) => k.startsWith('itmo-claim:'))).toEqual([itmoClaimFact('i1')]);
    expect(effects).toBe(1);
    expect(refused).toEqual(['INSUFFICIENT_BALANCE']);
  });

  it('commits claims to one certificate at a time, certifies them on approval, frees them on rejection', () => {
    const { refused, fact } = run([
      funded,
      claim('i1'),
      claim('i2', '10000000'),
      certify('cert1', ['i1']),
      certify('cert2', ['i1', 'i2']),
      decide('cert1', 'approved', ['i1']),
      decide('cert1', 'approved', ['i1']),
      decide('cert1', 'rejected', ['i1']),
      certify('cert3', ['i2']),
      decide('cert3', 'rejected', ['i2']),
      certify('cert4', ['i2']),
      decide('nope', 'approved', ['i2']),
      // The claims named must be the certificate's: a stale read is refused, changing nothing.
      decide('cert4', 'approved', ['i1']),
    ]);
    expect(refused).toEqual([
      'ITMO_CLAIM_UNAVAILABLE',
      'ITMO_CERTIFICATE_DECIDED',
      'ITMO_CERTIFICATE_NOT_FOUND',
      'ITMO_CLAIM_UNAVAILABLE',
    ]);
    expect(fact(itmoClaimFact('i1'))).toMatchObject({ status: 'certified', certificate: 'cert1' });
    expect(fact(itmoClaimFact('i2'))).toMatchObject({ status: 'certifying', certificate: 'cert4' });
    expect(fact(itmoCertificateFact('cert3'))?.status).toBe('rejected');
    expect(fact(itmoCertificateFact('cert1'))).toMatchObject({ status: 'approved', units: '20000000' });
  });
});
