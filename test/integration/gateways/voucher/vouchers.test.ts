import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigner } from '../../../support/signer.js';
import { newDidKey } from '../../../support/voucher-fixtures.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { ledgerRecords } from '../../../support/ledger-records.js';

describe('vouchers (spec 000)', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let now = new Date('2026-06-01T10:00:00Z');
  const household = newDidKey();
  const supplier = newSigner();
  const supplierDid = supplier.did;
  let implementerKey = '';
  let supplierKey = '';
  let householdKey = '';

  const certificate = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    projectId: 'did:ixo:entity:project1',
    verifiedReduction: 500,
    status: 'verified',
    monitoringPlan: {
      approvedProducts: ['stove-1'],
      acceptedCredentialTypes: ['ProductDeliveryCredential'],
      claimWindowDays: 30,
    },
    ...extra,
  });
  const issue = (cert: string, extra: Record<string, unknown> = {}) => ({
    recipientDid: household,
    emissionCertificateId: cert,
    value: 500,
    attributes: { batchId: 'b1', issuanceDate: '2026-06-01', expiryDate: '2026-12-31' },
    ...extra,
  });
  const redeem = (voucherId: string, amount: number, extra: Record<string, unknown> = {}) => ({
    voucherId,
    supplierDid,
    amount,
    productId: 'stove-1',
    ...extra,
  });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4' }), env.log, {
      clock: () => now,
    });
    a = api(hearth.port, () => now);
    implementerKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer', label: 'ops' } })).body.key;
    supplierKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplierDid } })).body.key;
    a.signWith(supplierKey, supplier);
    householdKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'household', did: household } })).body.key;
    const as = { key: implementerKey };
    expect(
      (await a.call('POST', '/v1/households', { ...as, body: { did: household, phoneNumber: '+260971234567' } }))
        .status,
    ).toBe(201);
    expect(
      (
        await a.call('POST', '/v1/suppliers', {
          ...as,
          body: { did: supplierDid, name: 'Stoves Ltd', authorized: true },
        })
      ).status,
    ).toBe(201);
    expect(
      (await a.call('POST', '/v1/products', { ...as, body: { id: 'stove-1', name: 'Clean stove', approved: true } }))
        .status,
    ).toBe(201);
    expect(
      (await a.call('POST', '/v1/products', { ...as, body: { id: 'kerosene', name: 'Kerosene', approved: false } }))
        .status,
    ).toBe(201);
    // Approved, but in no certificate's monitoring plan here.
    expect(
      (await a.call('POST', '/v1/products', { ...as, body: { id: 'pellets', name: 'Pellets', approved: true } }))
        .status,
    ).toBe(201);
    for (const id of ['cert-1', 'cert-2', 'cert-3', 'cert-exp']) {
      expect((await a.call('POST', '/v1/certificates', { ...as, body: certificate(id) })).status).toBe(201);
    }
    expect(
      (await a.call('POST', '/v1/certificates', { ...as, body: certificate('cert-pending', { status: 'pending' }) }))
        .status,
    ).toBe(201);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  describe('authentication', () => {
    it('answers 401 without a key, with a malformed header, and with an unknown key', async () => {
      expect((await a.call('GET', '/v1/vouchers', { key: '' })).status).toBe(401);
      const basic = await a.call('GET', '/v1/vouchers', { key: '', headers: { authorization: 'Basic abc' } });
      expect(basic.status).toBe(401);
      expect(basic.body.error.message).toMatch(/Authorization: Bearer <API_KEY>/);
      const unknown = await a.call('GET', '/v1/vouchers', { key: 'hk_0000000000000000_' + 'x'.repeat(43) });
      expect(unknown.status).toBe(401);
    });

    it('shows a new key once, lists keys without secrets, and stops a revoked key at once', async () => {
      const made = await a.call('POST', '/v1/api-keys', { body: { role: 'regulator' } });
      expect(made.status).toBe(201);
      expect(made.body.key).toMatch(/^hk_[a-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
      expect((await a.call('GET', '/v1/vouchers', { key: made.body.key })).status).toBe(200);
      const list = await a.call('GET', '/v1/api-keys');
      expect(JSON.stringify(list.body)).not.toContain(made.body.key.slice(20)); // hk_ + 16-char id + _
      const stored = await env.sql<{ hash: string }[]>`SELECT hash FROM api_keys WHERE id = ${made.body.id}`;
      expect(stored[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await a.call('DELETE', `/v1/api-keys/${made.body.id}`)).body.revokedAt).toBeDefined();
      expect((await a.call('GET', '/v1/vouchers', { key: made.body.key })).status).toBe(401);
    });

    it('requires a DID for supplier and household keys, and refuses one for the others', async () => {
      expect((await a.call('POST', '/v1/api-keys', { body: { role: 'supplier' } })).status).toBe(400);
      expect((await a.call('POST', '/v1/api-keys', { body: { role: 'admin', did: household } })).status).toBe(400);
      expect((await a.call('POST', '/v1/api-keys', { body: { role: 'root' } })).status).toBe(400);
    });

    it('answers 403 when the role may not do it', async () => {
      const r = await a.call('POST', '/v1/households', { key: supplierKey, body: { did: 'did:key:zother' } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
      expect((await a.call('POST', '/v1/api-keys', { key: implementerKey, body: { role: 'admin' } })).status).toBe(403);
    });
  });

  describe('registries', () => {
    it('creates, reads, lists and updates, with 409 on a duplicate and 404 on an unknown id', async () => {
      const as = { key: implementerKey };
      const did = newDidKey();
      expect((await a.call('POST', '/v1/households', { ...as, body: { did } })).status).toBe(201);
      expect((await a.call('POST', '/v1/households', { ...as, body: { did } })).body.error.code).toBe('ALREADY_EXISTS');
      const one = await a.call('GET', `/v1/households/${encodeURIComponent(did)}`, as);
      expect(one.body).toMatchObject({ did });
      expect((await a.call('GET', '/v1/households/did:key:znobody', as)).status).toBe(404);
      const patched = await a.call('PATCH', `/v1/households/${encodeURIComponent(did)}`, {
        ...as,
        body: { phoneNumber: '+260970000001' },
      });
      expect(patched.body.phoneNumber).toBe('+260970000001');
      const page = await a.call('GET', '/v1/households?limit=1&offset=0', as);
      expect(page.body.items).toHaveLength(1);
      expect(page.body.total).toBeGreaterThanOrEqual(2);
      expect((await a.call('GET', '/v1/households?limit=500', as)).status).toBe(400);
    });

    it("answers 409 naming the field when a phone number is already another household's, on create and on update", async () => {
      const as = { key: implementerKey };
      const [first, second] = [newDidKey(), newDidKey()];
      const phone = '+260970000777';
      expect((await a.call('POST', '/v1/households', { ...as, body: { did: first, phoneNumber: phone } })).status).toBe(
        201,
      );
      const created = await a.call('POST', '/v1/households', { ...as, body: { did: second, phoneNumber: phone } });
      expect(created.status).toBe(409);
      expect(created.body.error).toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'phoneNumber' } });
      expect(created.body.message).toMatch(/phoneNumber/);
      expect((await a.call('POST', '/v1/households', { ...as, body: { did: second } })).status).toBe(201);
      const moved = await a.call('PATCH', `/v1/households/${encodeURIComponent(second)}`, {
        ...as,
        body: { phoneNumber: phone },
      });
      expect(moved.status).toBe(409);
      expect(moved.body.error).toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'phoneNumber' } });
    });

    it('lets a household read its own record only', async () => {
      expect((await a.call('GET', `/v1/households/${household}`, { key: householdKey })).status).toBe(200);
      expect((await a.call('GET', '/v1/households', { key: householdKey })).status).toBe(403);
    });

    it("takes a supplier's key from its did:key and refuses one that does not match", async () => {
      const s = await a.call('GET', `/v1/suppliers/${supplierDid}`, { key: implementerKey });
      expect(s.body.publicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const other = newDidKey();
      const wrong = await a.call('POST', '/v1/suppliers', {
        key: implementerKey,
        body: { did: other, name: 'x', authorized: true, publicKey: s.body.publicKey },
      });
      expect(wrong.status).toBe(400);
      expect(JSON.stringify(wrong.body.error.details)).toMatch(/does not match the key in the did:key/);
      const none = await a.call('POST', '/v1/suppliers', {
        key: implementerKey,
        body: { did: 'did:ixo:abc', name: 'x', authorized: true },
      });
      expect(none.status).toBe(400);
    });
  });

  describe('issuance', () => {
    it('issues a voucher with the representation of the spec (201)', async () => {
      const r = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-1') });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(/^vch_/),
        code: expect.stringMatching(/^[1-9][0-9]{9}$/),
        status: 'active',
        recipientDid: household,
        emissionCertificateId: 'cert-1',
        value: 500,
        remainingBalance: 500,
        attributes: { batchId: 'b1', issuanceDate: '2026-06-01', expiryDate: '2026-12-31' },
      });
    });

    it('refuses a second voucher against one certificate with 409', async () => {
      const r = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-1') });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('CERTIFICATE_ALREADY_USED');
    });

    it.each([
      ['rule 1: unknown certificate', issue('cert-none'), 404, 'CERTIFICATE_NOT_FOUND'],
      ['rule 1: certificate not verified', issue('cert-pending'), 400, 'CERTIFICATE_NOT_VERIFIED'],
      [
        'rule 2: recipient not a household',
        issue('cert-2', { recipientDid: 'did:key:zstranger' }),
        400,
        'HOUSEHOLD_NOT_REGISTERED',
      ],
      ['rule 3: value not the verified reduction', issue('cert-2', { value: 499.5 }), 400, 'VALUE_MISMATCH'],
      [
        'impossible date',
        issue('cert-2', { attributes: { batchId: 'b', issuanceDate: '2026-02-30', expiryDate: '2026-12-31' } }),
        400,
        'INVALID_DATES',
      ],
      [
        'expiry before issuance',
        issue('cert-2', { attributes: { batchId: 'b', issuanceDate: '2026-06-01', expiryDate: '2026-05-01' } }),
        400,
        'INVALID_DATES',
      ],
      ['negative value', issue('cert-2', { value: -5 }), 400, 'VALIDATION_FAILED'],
      ['unknown field', issue('cert-2', { bonus: 1 }), 400, 'VALIDATION_FAILED'],
      ['value as a string', issue('cert-2', { value: '500' }), 400, 'VALIDATION_FAILED'],
      [
        'a lone surrogate (not UTF-16, Postgres refuses it)',
        issue('cert-2', { attributes: { batchId: '\ud800', issuanceDate: '2026-06-01', expiryDate: '2026-12-31' } }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'nesting 40 levels deep',
        issue('cert-2', { extra: JSON.parse('['.repeat(40) + ']'.repeat(40)) }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a NUL character (Postgres cannot store it)',
        issue('cert-2', { attributes: { batchId: 'b\u0000', issuanceDate: '2026-06-01', expiryDate: '2026-12-31' } }),
        400,
        'VALIDATION_FAILED',
      ],
    ])('refuses %s', async (_name, body, status, code) => {
      const r = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body });
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    });

    it('only lets implementers and admins issue', async () => {
      expect((await a.call('POST', '/v1/vouchers/issue', { key: supplierKey, body: issue('cert-2') })).status).toBe(
        403,
      );
    });
  });

  describe('redemption', () => {
    let voucherId = '';

    beforeAll(async () => {
      voucherId = (await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-2') })).body.id;
    });

    it('redeems in parts and returns the redemption record (201)', async () => {
      const viewRow = async () =>
        (
          await env.sql<{ xmin: string; status: string }[]>`
          SELECT xmin::text, status FROM voucher_views WHERE key = ${voucherId}`
        )[0];
      const before = await viewRow();
      const r = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(voucherId, 120.25) });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        voucherId,
        supplierDid,
        productId: 'stove-1',
        amount: 120.25,
        remainingBalance: 379.75,
        createdAt: now.toISOString(),
      });
      const v = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: implementerKey });
      expect(v.body.remainingBalance).toBe(379.75);
      // Read from the voucher's snapshot: its read model row, which holds what lists filter on,
      // was not written again (nothing in it changed: migration 028).
      expect(await viewRow()).toEqual(before);
      const listed = await a.call('GET', `/v1/vouchers?recipientDid=${encodeURIComponent(household)}&status=active`, {
        key: implementerKey,
      });
      expect(listed.body.items.find((x: { id: string }) => x.id === voucherId)?.remainingBalance).toBe(379.75);
    });

    it.each([
      ['rule 3: amount above the balance', () => redeem(voucherId, 1000), 409, 'INSUFFICIENT_BALANCE'],
      [
        'rule 4: product not approved',
        () => redeem(voucherId, 1, { productId: 'kerosene' }),
        400,
        'PRODUCT_NOT_APPROVED',
      ],
      ['rule 4: unknown product', () => redeem(voucherId, 1, { productId: 'nothing' }), 400, 'PRODUCT_NOT_APPROVED'],
      [
        "rule 4: an approved product outside the voucher's monitoring plan (no claim could follow)",
        () => redeem(voucherId, 1, { productId: 'pellets' }),
        400,
        'PRODUCT_NOT_APPROVED',
      ],
      ['unknown voucher', () => redeem('vch_nope', 1), 404, 'VOUCHER_NOT_FOUND'],
      [
        'another supplier DID than the key',
        () => redeem(voucherId, 1, { supplierDid: 'did:key:zsomeoneelse' }),
        403,
        'SUPPLIER_DID_MISMATCH',
      ],
      ['zero amount', () => redeem(voucherId, 0), 400, 'VALIDATION_FAILED'],
      ['negative amount', () => redeem(voucherId, -1), 400, 'VALIDATION_FAILED'],
      ['amount with 7 decimals', () => redeem(voucherId, 0.0000001), 400, 'VALIDATION_FAILED'],
    ])('refuses %s', async (_name, body, status, code) => {
      const r = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: body() });
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    });

    it('rule 2: refuses a supplier that is not authorized (403)', async () => {
      const unvetted = newSigner();
      const did = unvetted.did;
      await a.call('POST', '/v1/suppliers', {
        key: implementerKey,
        body: { did, name: 'Unvetted', authorized: false },
      });
      const key = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did } })).body.key;
      a.signWith(key, unvetted);
      const r = await a.call('POST', '/v1/vouchers/redeem', { key, body: redeem(voucherId, 1, { supplierDid: did }) });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('SUPPLIER_NOT_AUTHORIZED');
    });

    it('marks the voucher redeemed at balance 0 and then refuses it (rule 1)', async () => {
      const last = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(voucherId, 379.75) });
      expect(last.body.remainingBalance).toBe(0);
      expect((await a.call('GET', `/v1/vouchers/${voucherId}`, { key: implementerKey })).body.status).toBe('redeemed');
      const [row] = await env.sql<{ status: string }[]>`SELECT status FROM voucher_views WHERE key = ${voucherId}`;
      expect(row?.status).toBe('redeemed');
      const again = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(voucherId, 1) });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('VOUCHER_NOT_ACTIVE');
      const list = await a.call('GET', `/v1/vouchers/${voucherId}/redemptions`, { key: implementerKey });
      expect(list.body.items.map((r: { amount: number }) => r.amount)).toEqual([120.25, 379.75]);
    });

    it('answers expired past the expiry date, without any sweep, and refuses to redeem (rule 1)', async () => {
      const id = (
        await a.call('POST', '/v1/vouchers/issue', {
          key: implementerKey,
          body: issue('cert-exp', {
            attributes: { batchId: 'b', issuanceDate: '2026-06-01', expiryDate: '2026-06-30' },
          }),
        })
      ).body.id;
      now = new Date('2026-07-01T00:00:00Z');
      try {
        expect((await a.call('GET', `/v1/vouchers/${id}`, { key: implementerKey })).body.status).toBe('expired');
        const r = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 1) });
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('VOUCHER_EXPIRED');
        const expired = await a.call('GET', '/v1/vouchers?status=expired', { key: implementerKey });
        expect(expired.body.items.map((v: { id: string }) => v.id)).toContain(id);
      } finally {
        now = new Date('2026-06-01T10:00:00Z');
      }
    });

    it('writes a ledger entry (in a block or waiting for one) for every issue and redemption', async () => {
      const records = await ledgerRecords(env.sql, { actorType: 'voucher' });
      const n = records.filter((r) => ['voucher.issued', 'voucher.redeemed'].includes(String(r.payload.type))).length;
      expect(n).toBe(3 + 2); // cert-1, cert-2, cert-exp issued; two redemptions of cert-2's voucher
    });
  });

  describe('revocation', () => {
    it('revokes an active voucher, then refuses to redeem it; repeats are harmless; others are refused', async () => {
      await a.call('POST', '/v1/certificates', { key: implementerKey, body: certificate('cert-revoke') });
      const id = (await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-revoke') })).body
        .id;
      expect((await a.call('POST', `/v1/vouchers/${id}/revoke`, { key: supplierKey, body: {} })).status).toBe(403);
      const r = await a.call('POST', `/v1/vouchers/${id}/revoke`, {
        key: implementerKey,
        body: { reason: 'duplicate household' },
      });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('revoked');
      expect((await a.call('POST', `/v1/vouchers/${id}/revoke`, { key: implementerKey, body: {} })).body.status).toBe(
        'revoked',
      );
      const redeemed = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 1) });
      expect(redeemed.status).toBe(409);
      expect(redeemed.body.error.code).toBe('VOUCHER_NOT_ACTIVE');
      expect((await a.call('POST', '/v1/vouchers/vch_nothing/revoke', { key: implementerKey, body: {} })).status).toBe(
        404,
      );
      const revokedList = await a.call('GET', '/v1/vouchers?status=revoked', { key: implementerKey });
      expect(revokedList.body.items.map((v: { id: string }) => v.id)).toEqual([id]);
    });
  });

  describe('review regressions', () => {
    it('accepts every amount with at most 6 decimals, large ones included (16384.01)', async () => {
      await a.call('POST', '/v1/certificates', {
        key: implementerKey,
        body: certificate('cert-big', { verifiedReduction: 16384.01 }),
      });
      const r = await a.call('POST', '/v1/vouchers/issue', {
        key: implementerKey,
        body: issue('cert-big', { value: 16384.01 }),
      });
      expect(r.status).toBe(201);
      expect(r.body.value).toBe(16384.01);
    });

    it('never takes a client X-Request-Id for a retry: two redemptions with one header both apply', async () => {
      const id = (await a.call('GET', '/v1/vouchers?emissionCertificateId=cert-big', { key: implementerKey })).body
        .items[0].id;
      const headers = { 'x-request-id': 'same-request-id' };
      const one = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 1), headers });
      const two = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 2), headers });
      expect([one.status, two.status]).toEqual([201, 201]);
      expect(two.body.id).not.toBe(one.body.id);
      expect(two.body.remainingBalance).toBe(16381.01); // exact: amounts are micro-units inside
    });

    it('keeps a refused answer under its Idempotency-Key (a 409 stays a 409)', async () => {
      const id = (await a.call('GET', '/v1/vouchers?emissionCertificateId=cert-big', { key: implementerKey })).body
        .items[0].id;
      const headers = { 'idempotency-key': 'too-much' };
      const first = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 99999), headers });
      expect(first.body.error.code).toBe('INSUFFICIENT_BALANCE');
      const replay = await a.call('POST', '/v1/vouchers/redeem', {
        key: supplierKey,
        body: redeem(id, 99999),
        headers,
      });
      expect(replay.status).toBe(409);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      // The one error body, first time and replayed: what ixo's clients read is at the top.
      for (const r of [first, replay])
        expect(r.body).toMatchObject({
          statusCode: 409,
          message: expect.any(String),
          error: { code: 'INSUFFICIENT_BALANCE' },
        });
      const changed = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(id, 1), headers });
      expect(changed.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });

    it('keeps the answer to a new API key sealed: its secret is replayed to the same caller, never stored in clear', async () => {
      const headers = { 'idempotency-key': 'new-key-once' };
      const body = { role: 'regulator' };
      const first = await a.call('POST', '/v1/api-keys', { body, headers });
      expect(first.status).toBe(201);
      const secret = String(first.body.key);
      const [row] = await env.sql<{ body: string }[]>`SELECT body FROM idempotency_keys WHERE key = 'new-key-once'`;
      expect(row?.body).toMatch(/^sealed:/);
      expect(row?.body).not.toContain(secret);
      // The secret part alone (base64url: it may hold '_' itself, so not split on it).
      const secretPart = secret.replace(/^hk_[0-9a-f]{16}_/, '');
      expect(secretPart.length).toBeGreaterThanOrEqual(40);
      expect(row?.body).not.toContain(secretPart);
      const replay = await a.call('POST', '/v1/api-keys', { body, headers });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.key).toBe(secret);
    });

    it('reports the total even past the last page', async () => {
      const r = await a.call('GET', '/v1/vouchers?offset=1000', { key: implementerKey });
      expect(r.body.items).toEqual([]);
      expect(r.body.total).toBeGreaterThan(0);
    });
  });

  describe('reads', () => {
    it('shows a household only its own vouchers', async () => {
      const own = await a.call('GET', '/v1/vouchers', { key: householdKey });
      expect(own.status).toBe(200);
      expect(own.body.items.length).toBeGreaterThan(0);
      expect(own.body.items.every((v: { recipientDid: string }) => v.recipientDid === household)).toBe(true);
      const other = newDidKey();
      const otherKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'household', did: other } })).body.key;
      const mine = own.body.items[0].id as string;
      expect((await a.call('GET', `/v1/vouchers/${mine}`, { key: otherKey })).status).toBe(404);
      expect((await a.call('GET', `/v1/vouchers?recipientDid=${household}`, { key: otherKey })).status).toBe(403);
    });

    it('filters by certificate and status, with pagination', async () => {
      const byCert = await a.call('GET', '/v1/vouchers?emissionCertificateId=cert-1', { key: implementerKey });
      expect(byCert.body.items).toHaveLength(1);
      const page = await a.call('GET', '/v1/vouchers?limit=1&offset=1', { key: implementerKey });
      expect(page.body).toMatchObject({ limit: 1, offset: 1, total: 5 });
      expect(page.body.items).toHaveLength(1);
      expect((await a.call('GET', '/v1/vouchers?status=lost', { key: implementerKey })).status).toBe(400);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, and refuses the key with another body', async () => {
      await a.call('POST', '/v1/certificates', { key: implementerKey, body: certificate('cert-idem') });
      const headers = { 'idempotency-key': 'issue-cert-idem' };
      const first = await a.call('POST', '/v1/vouchers/issue', {
        key: implementerKey,
        body: issue('cert-idem'),
        headers,
      });
      const second = await a.call('POST', '/v1/vouchers/issue', {
        key: implementerKey,
        body: issue('cert-idem'),
        headers,
      });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const other = await a.call('POST', '/v1/vouchers/issue', { key: implementerKey, body: issue('cert-3'), headers });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });
  });

  // Last: it adds a voucher and a redemption, which the counts above do not expect.
  describe('a voucher dated ahead', () => {
    it('rule 1: refuses a voucher before its issuance date (409), and redeems it from that day', async () => {
      const cert = await a.call('POST', '/v1/certificates', { key: implementerKey, body: certificate('cert-ahead') });
      expect(cert.status).toBe(201);
      const ahead = await a.call('POST', '/v1/vouchers/issue', {
        key: implementerKey,
        body: issue('cert-ahead', {
          attributes: { batchId: 'b1', issuanceDate: '2026-06-02', expiryDate: '2026-12-31' },
        }),
      });
      expect(ahead.status).toBe(201);
      const early = await a.call('POST', '/v1/vouchers/redeem', { key: supplierKey, body: redeem(ahead.body.id, 1) });
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('VOUCHER_NOT_ACTIVE');
      expect(early.body.message).toMatch(/valid from 2026-06-02/);
      now = new Date('2026-06-02T00:00:00Z');
      try {
        const onTheDay = await a.call('POST', '/v1/vouchers/redeem', {
          key: supplierKey,
          body: redeem(ahead.body.id, 1),
        });
        expect(onTheDay.status).toBe(201);
      } finally {
        now = new Date('2026-06-01T10:00:00Z');
      }
    });
  });
});
