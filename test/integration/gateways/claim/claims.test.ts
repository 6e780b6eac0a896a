import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { compactJws, newSigner } from '../../../support/signer.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';
import { ledgerRecords } from '../../../support/ledger-records.js';

describe('claims (spec 000)', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let now = new Date();
  let redemptionId = '';
  let voucherId = '';

  const claim = (rid: string, proof: string, type = 'ProductDeliveryCredential') => ({
    redemptionId: rid,
    verifiableCredential: { type, proof },
  });
  const post = (body: unknown, key = s.supplierKey, headers: Record<string, string> = {}) =>
    a.call('POST', '/v1/claims', { key, body, headers });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log, {
      clock: () => now,
    });
    a = api(hearth.port, () => now);
    s = await setUpScheme(a);
    voucherId = await issueVoucher(a, s, 'cert-claims', 100);
    const redeem = async (amount: number): Promise<string> =>
      (
        await a.call('POST', '/v1/vouchers/redeem', {
          key: s.supplierKey,
          body: { voucherId, supplierDid: s.supplierDid, amount, productId: 'stove-1' },
        })
      ).body.id;
    redemptionId = await redeem(10);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('accepts a claim with a proof signed by the supplier over the redemption (201)', async () => {
    const proof = compactJws(s.supplier, { redemptionId, delivered: true });
    const r = await post(claim(redemptionId, proof));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      redemptionId,
      voucherId,
      supplierDid: s.supplierDid,
      productId: 'stove-1',
      credentialType: 'ProductDeliveryCredential',
      status: 'submitted',
    });
    expect((await a.call('GET', `/v1/claims/${r.body.id}`, { key: s.implementerKey })).body.id).toBe(r.body.id);
    const onLedger = await ledgerRecords(env.sql, { type: 'claim.submitted' });
    expect(onLedger).toHaveLength(1);
    // The proof's digest, not the proof: which delivery proof was accepted, checkable by its holder.
    expect(onLedger[0]!.payload.proofDigest).toBe(createHash('sha256').update(proof).digest('hex'));
    expect(JSON.stringify(onLedger[0]!.payload)).not.toContain(proof);
  });

  it('refuses a second claim for the same redemption (409)', async () => {
    const r = await post(claim(redemptionId, compactJws(s.supplier, { redemptionId })));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CLAIM_ALREADY_SUBMITTED');
  });

  describe('rules', () => {
    let fresh = '';
    beforeAll(async () => {
      fresh = (
        await a.call('POST', '/v1/vouchers/redeem', {
          key: s.supplierKey,
          body: { voucherId, supplierDid: s.supplierDid, amount: 5, productId: 'stove-1' },
        })
      ).body.id;
    });

    it.each([
      [
        'rule 1: a proof signed by another key',
        () => claim(fresh, compactJws(newSigner(), { redemptionId: fresh })),
        400,
        'CLAIM_PROOF_INVALID',
      ],
      [
        'rule 1: a proof over another redemption',
        () => claim(fresh, compactJws(s.supplier, { redemptionId: 'other' })),
        400,
        'CLAIM_PROOF_INVALID',
      ],
      ['rule 1: a proof that is not a JWS', () => claim(fresh, 'not-a-jws'), 400, 'CLAIM_PROOF_INVALID'],
      ['rule 1: a JWS whose header is null', () => claim(fresh, 'bnVsbA.e30.AAAA'), 400, 'CLAIM_PROOF_INVALID'],
      [
        'rule 2: a credential type outside the plan',
        () => claim(fresh, compactJws(s.supplier, { redemptionId: fresh }), 'SelfieCredential'),
        400,
        'CLAIM_NOT_IN_PLAN',
      ],
      [
        'an unknown redemption',
        () => claim('nope', compactJws(s.supplier, { redemptionId: 'nope' })),
        404,
        'REDEMPTION_NOT_FOUND',
      ],
      ['an unknown field', () => ({ ...claim(fresh, 'x'), extra: 1 }), 400, 'VALIDATION_FAILED'],
    ])('refuses %s', async (_name, body, status, code) => {
      const r = await post(body());
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    });

    it('rule 3: refuses a claim after the claim window (30 days)', async () => {
      const saved = now;
      now = new Date(saved.getTime() + 31 * 24 * 3600 * 1000);
      try {
        const r = await post(claim(fresh, compactJws(s.supplier, { redemptionId: fresh })));
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('CLAIM_WINDOW_CLOSED');
      } finally {
        now = saved;
      }
    });

    it('refuses a claim by a supplier that did not make the redemption (403)', async () => {
      const other = newSigner();
      await a.call('POST', '/v1/suppliers', {
        key: s.implementerKey,
        body: { did: other.did, name: 'Other', authorized: true },
      });
      const key = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: other.did } })).body.key;
      a.signWith(key, other);
      const r = await post(claim(fresh, compactJws(other, { redemptionId: fresh })), key);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('CLAIM_NOT_YOURS');
    });
  });

  it('lists a supplier only its own claims', async () => {
    const r = await a.call('GET', '/v1/claims', { key: s.supplierKey });
    expect(r.body.items.length).toBeGreaterThan(0);
    expect(r.body.items.every((c: { supplierDid: string }) => c.supplierDid === s.supplierDid)).toBe(true);
  });
});
