import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, api, type Api } from './api.js';
import { compactJws, newSigner } from './signer.js';
import { newDidKey } from './voucher-fixtures.js';

/** A hearth to test through HTTP: its port, and how to stop it. */
export interface Tier {
  port: number;
  close(): Promise<void>;
}

/**
 * A voucher scheme through HTTP alone, as an integrator meets it (spec 000): keys, registries,
 * issuance, signed redemptions, reads, revocation, Idempotency-Key. Run against every tier:
 * hearth on memory (test/product, no services) and on Redis and PostgreSQL (test/integration),
 * so the fast tier is held to the answers of the real one. `start` gets the admin key and
 * hearth's clock.
 */
export function voucherSchemeSuite(name: string, start: (adminKey: string, clock: () => Date) => Promise<Tier>): void {
  describe(`voucher scheme through HTTP: ${name}`, () => {
    let tier: Tier;
    let a: Api;
    const now = new Date('2026-06-01T10:00:00Z');
    const household = newDidKey();
    const supplier = newSigner();
    let implementerKey = '';
    let supplierKey = '';
    let householdKey = '';
    let regulatorKey = '';
    const certificate = (id: string) => ({
      id,
      projectId: 'did:ixo:entity:project1',
      verifiedReduction: 500,
      status: 'verified',
      monitoringPlan: {
        approvedProducts: ['stove-1'],
        acceptedCredentialTypes: ['ProductDeliveryCredential'],
        claimWindowDays: 30,
      },
    });
    const issue = (cert: string) => ({
      recipientDid: household,
      emissionCertificateId: cert,
      value: 500,
      attributes: { batchId: 'b1', issuanceDate: '2026-06-01', expiryDate: '2026-12-31' },
    });
    const redeem = (voucherId: string, amount: number, productId = 'stove-1') => ({
      voucherId,
      supplierDid: supplier.did,
      amount,
      productId,
    });
    const issued = async (cert: string): Promise<{ id: string; code: string }> => {
      expect((await a.call('POST', '/v1/certificates', { key: implementerKey, body: certificate(cert) })).status).toBe(
        201,
      );
      const r = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue(cert) });
      expect(r.status).toBe(201);
      return r.body as { id: string; code: string };
    };

    beforeAll(async () => {
      tier = await start(adminKey, () => now);
      a = api(tier.port, () => now);
      implementerKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key;
      supplierKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplier.did } })).body.key;
      householdKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'household', did: household } })).body.key;
      regulatorKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'regulator' } })).body.key;
      a.signWith(supplierKey, supplier);
      const as = { key: implementerKey };
      for (const [path, body] of [
        ['/v1/households', { did: household, phoneNumber: '+260971234567' }],
        ['/v1/suppliers', { did: supplier.did, name: 'Stoves Ltd', authorized: true }],
        ['/v1/products', { id: 'stove-1', name: 'Clean stove', approved: true }],
        ['/v1/products', { id: 'pellets', name: 'Pellets', approved: true }],
      ] as const) {
        expect((await a.call('POST', path, { ...as, body })).status).toBe(201);
      }
    });

    afterAll(async () => {
      await tier?.close();
    });

    it('answers 401 without a key and 403 for a role that may not', async () => {
      expect((await a.call('GET', '/v1/vouchers', { key: '' })).status).toBe(401);
      expect((await a.call('POST', '/v1/vouchers/issue', { key: householdKey, body: issue('c') })).status).toBe(403);
    });

    it('keeps registry rules: 409 on a duplicate id, 409 naming a phone number already held, 404 on an unknown id', async () => {
      const as = { key: implementerKey };
      expect(
        (await a.call('POST', '/v1/products', { ...as, body: { id: 'stove-1', name: 'x', approved: true } })).status,
      ).toBe(409);
      const other = await a.call('POST', '/v1/households', {
        ...as,
        body: { did: newDidKey(), phoneNumber: '+260971234567' },
      });
      expect(other.status).toBe(409);
      expect(JSON.stringify(other.body)).toMatch(/phoneNumber/);
      expect((await a.call('GET', '/v1/products/none', as)).status).toBe(404);
      const updated = await a.call('PATCH', '/v1/products/pellets', { ...as, body: { approved: false } });
      expect(updated.body).toMatchObject({ id: 'pellets', approved: false });
    });

    it('issues a voucher with a code, once per certificate', async () => {
      const v = await issued('cert-1');
      expect(v).toMatchObject({ id: expect.stringMatching(/^vch_/), code: expect.stringMatching(/^[1-9][0-9]{9}$/) });
      const again = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-1') });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CERTIFICATE_ALREADY_USED');
      const byCode = await a.call('GET', `/v1/vouchers/${v.code}`, { key: implementerKey });
      expect(byCode.body).toMatchObject({ id: v.id, remainingBalance: 500, status: 'active' });
    });

    it('redeems signed requests in parts, refuses what the rules refuse, and shows the balance', async () => {
      const { id } = await issued('cert-2');
      const r = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 120.25) });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        voucherId: id,
        amount: 120.25,
        remainingBalance: 379.75,
        createdAt: now.toISOString(),
      });
      const tooMuch = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 400) });
      expect(tooMuch.body.error.code).toBe('INSUFFICIENT_BALANCE');
      const unapproved = await a.call('POST', '/v1/vouchers/redeem', {
        key: supplierKey,
        body: redeem(id, 1, 'pellets'),
      });
      expect(unapproved.status).toBeGreaterThanOrEqual(400);
      expect(unapproved.status).toBeLessThan(500);
      expect((await a.call('GET', `/v1/vouchers/${id}`, { key: implementerKey })).body.remainingBalance).toBe(379.75);
      const list = await a.call('GET', `/v1/vouchers/${id}/redemptions`, { key: implementerKey });
      expect(list.body.items.map((x: { amount: number }) => x.amount)).toEqual([120.25]);
    });

    it('replays the first answer to an Idempotency-Key and refuses the key with another body', async () => {
      const { id } = await issued('cert-idem');
      const headers = { 'idempotency-key': 'redeem-once' };
      const first = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 10), headers });
      const second = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 10), headers });
      expect(first.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const other = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 11), headers });
      expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await a.call('GET', `/v1/vouchers/${id}`, { key: implementerKey })).body.remainingBalance).toBe(490);
    });

    it("takes a delivery claim once; a rejected claim's amount goes back to its voucher, an accepted one stays spent", async () => {
      const { id } = await issued('cert-claims');
      const claim = async (amount: number) => {
        const redemption = (await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, amount) }))
          .body.id as string;
        const proof = compactJws(supplier, { redemptionId: redemption, delivered: true });
        const body = { redemptionId: redemption, verifiableCredential: { type: 'ProductDeliveryCredential', proof } };
        const r = await a.call('POST', '/v1/claims', { key: supplierKey, body });
        expect(r.status).toBe(201);
        const again = await a.call('POST', '/v1/claims', { key: supplierKey, body });
        expect(again.body.error.code).toBe('CLAIM_ALREADY_SUBMITTED');
        return r.body.id as string;
      };
      const rejected = await claim(100);
      const accepted = await claim(50);
      expect((await a.call('GET', `/v1/claims/${rejected}`, { key: supplierKey })).body.status).toBe('submitted');
      const no = await a.call('POST', `/v1/claims/${rejected}/reject`, {
        key: regulatorKey,
        body: { reason: 'no proof of use' },
      });
      expect(no.body).toMatchObject({ status: 'rejected' });
      const yes = await a.call('POST', `/v1/claims/${accepted}/accept`, { key: regulatorKey, body: {} });
      expect(yes.body).toMatchObject({ status: 'accepted' });
      expect(
        (await a.call('POST', `/v1/claims/${accepted}/reject`, { key: regulatorKey, body: { reason: 'x' } })).body.error
          .code,
      ).toBe('CLAIM_ALREADY_DECIDED');
      // The refund is a tell from the claim to the voucher, applied after the decision's answer.
      let balance = 0;
      for (let i = 0; i < 100 && balance !== 450; i++) {
        balance = (await a.call('GET', `/v1/vouchers/${id}`, { key: implementerKey })).body.remainingBalance as number;
        if (balance !== 450) await new Promise((r) => setTimeout(r, 50));
      }
      expect(balance).toBe(450);
      const listed = await a.call('GET', `/v1/claims?voucherId=${id}`, { key: implementerKey });
      // Both made at the same (frozen) time: their order is their keys'.
      expect(listed.body.items.map((c: { id: string }) => c.id).sort()).toEqual([accepted, rejected].sort());
    });

    it("runs a survey campaign: a template by id, one household's response (a retry answered the same), responses listed", async () => {
      const created = await a.call('POST', '/v1/surveys', {
        key: implementerKey,
        body: {
          type: 'BaselineSurvey',
          projectId: 'did:ixo:entity:project1',
          template: {
            eligibilityCriteria: true,
            socioEconomicData: false,
            cookingPatterns: true,
            stovePerceptions: false,
          },
          sampling: { method: 'stratified', size: 400, confidence: 0.95 },
        },
      });
      expect(created.status).toBe(201);
      const survey = created.body as { id: string; templateId: string };
      const template = await a.call('GET', `/v1/templates/${survey.templateId}`, { key: implementerKey });
      expect(template.body.templateId).toBe(survey.templateId);
      expect((await a.call('GET', '/v1/templates/tpl-none-v1', { key: implementerKey })).status).toBe(404);
      const answers = {
        eligibility: { household_size: 4, primary_fuel: ['firewood'], owns_clean_stove: ['no'] },
        cooking: { meals_per_day: 2, cooking_location: ['outdoor'] },
      };
      const path = `/v1/surveys/${survey.id}/responses`;
      const first = await a.call('POST', path, {
        key: householdKey,
        body: { householdId: household, responses: answers },
      });
      expect(first.status).toBe(201);
      // The same answers again are a retry; other answers of the same household are refused.
      const again = await a.call('POST', path, {
        key: householdKey,
        body: { householdId: household, responses: answers },
      });
      expect(again.body).toEqual(first.body);
      const changed = { ...answers, cooking: { meals_per_day: 3, cooking_location: ['indoor'] } };
      const other = await a.call('POST', path, {
        key: householdKey,
        body: { householdId: household, responses: changed },
      });
      expect(other.body.error.code).toBe('SURVEY_RESPONSE_CONFLICT');
      const listed = await a.call('GET', path, { key: implementerKey });
      expect(listed.body).toMatchObject({ total: 1 });
      expect(listed.body.items[0]).toMatchObject({ householdId: household });
      const one = await a.call('GET', `${path}/${first.body.responseId as string}`, { key: implementerKey });
      expect(one.body).toEqual(listed.body.items[0]);
      expect((await a.call('GET', `/v1/surveys/${survey.id}`, { key: implementerKey })).body.id).toBe(survey.id);
    });

    it('revokes, then refuses to redeem; lists by status and shows a household only its own', async () => {
      const { id } = await issued('cert-revoke');
      expect((await a.call('POST', `/v1/vouchers/${id}/revoke`, { key: implementerKey, body: {} })).body.status).toBe(
        'revoked',
      );
      const refused = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 1) });
      expect(refused.body.error.code).toBe('VOUCHER_NOT_ACTIVE');
      const revoked = await a.call('GET', '/v1/vouchers?status=revoked', { key: implementerKey });
      expect(revoked.body.items.map((v: { id: string }) => v.id)).toEqual([id]);
      const own = await a.call('GET', '/v1/vouchers?limit=2&offset=1', { key: householdKey });
      expect(own.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
      const stranger = (await a.call('POST', '/v1/api-keys', { body: { role: 'household', did: newDidKey() } })).body
        .key;
      expect((await a.call('GET', `/v1/vouchers/${id}`, { key: stranger })).status).toBe(404);
    });
  });
}
