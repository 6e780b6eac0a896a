import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { newSigner, signatureHeaders, type Signer } from '../../../support/signer.js';

describe('supplier strong authentication (RFC 9421 message signatures)', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let supplier: Signer;
  let key = '';
  const path = '/v1/vouchers/redeem';
  const now = (): number => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log);
    a = api(hearth.port);
    supplier = newSigner();
    await a.call('POST', '/v1/suppliers', { body: { did: supplier.did, name: 'S', authorized: true } });
    key = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplier.did } })).body.key;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const body = (voucherId = 'vch_unknown'): string =>
    JSON.stringify({ voucherId, supplierDid: supplier.did, amount: 1, productId: 'p' });
  const send = (headers: Record<string, string>, text = body()) => a.call('POST', path, { key, body: text, headers });

  it('lets a well-signed request through to the business rules', async () => {
    const r = await send(signatureHeaders(supplier, 'POST', path, body(), now()));
    expect(r.body.error.code).toBe('PRODUCT_NOT_APPROVED'); // past authentication: the rules answer
  });

  it('answers a correctly signed request of a DID with no supplier record 403 SUPPLIER_NOT_AUTHORIZED, and warns when its key is made', async () => {
    const stranger = newSigner();
    const created = await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: stranger.did } });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([expect.stringMatching(/^no supplier is registered for did:key:.* yet/)]);
    const text = JSON.stringify({ voucherId: 'vch_x', supplierDid: stranger.did, amount: 1, productId: 'p' });
    const r = await a.call('POST', path, {
      key: created.body.key,
      body: text,
      headers: signatureHeaders(stranger, 'POST', path, text, now()),
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('SUPPLIER_NOT_AUTHORIZED');
    expect(r.body.error.message).toContain(stranger.did);
    // A registered supplier's key comes without a warning.
    const known = await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplier.did } });
    expect(known.body.warnings).toBeUndefined();
  });

  it('refuses a request without a signature (401 SIGNATURE_REQUIRED)', async () => {
    const r = await send({});
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('SIGNATURE_REQUIRED');
  });

  it.each([
    [
      'signed by another key',
      () => signatureHeaders(newSigner(), 'POST', path, body(), now(), { keyid: supplier.did }),
    ],
    [
      'keyid of another DID',
      () => signatureHeaders(supplier, 'POST', path, body(), now(), { keyid: 'did:key:zother' }),
    ],
    ['created more than 5 minutes ago', () => signatureHeaders(supplier, 'POST', path, body(), now() - 301)],
    // 310, not 301: `now()` is whole seconds and the server's clock runs on while the request is
    // sent, so 301 ahead could be 300.1 there by the time it checks (seen once in CI under load).
    ['created more than 5 minutes ahead', () => signatureHeaders(supplier, 'POST', path, body(), now() + 310)],
    [
      'not covering content-digest',
      () => signatureHeaders(supplier, 'POST', path, body(), now(), { components: ['@method', '@path'] }),
    ],
    ['signed for another path', () => signatureHeaders(supplier, 'POST', '/v1/claims', body(), now())],
    // Names an object's own property would answer for: a clear 401, not a 500.
    [
      'covering "constructor"',
      () =>
        signatureHeaders(supplier, 'POST', path, body(), now(), {
          components: ['@method', '@path', 'content-digest', 'constructor'],
        }),
    ],
    [
      'covering "__proto__"',
      () =>
        signatureHeaders(supplier, 'POST', path, body(), now(), {
          components: ['@method', '@path', 'content-digest', '__proto__'],
        }),
    ],
    ['signed for another body', () => signatureHeaders(supplier, 'POST', path, body('vch_other'), now())],
  ])('refuses a signature %s (401 SIGNATURE_INVALID)', async (_name, headers) => {
    const r = await send(headers());
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('SIGNATURE_INVALID');
  });

  it('refuses a body that does not match its Content-Digest', async () => {
    const headers = signatureHeaders(supplier, 'POST', path, body(), now());
    const r = await send(headers, body('vch_tampered'));
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/Content-Digest does not match/);
  });

  it('accepts a signature once and refuses its replay (401 SIGNATURE_REPLAYED)', async () => {
    const headers = signatureHeaders(supplier, 'POST', path, body(), now());
    expect((await send(headers)).body.error.code).toBe('PRODUCT_NOT_APPROVED');
    const replay = await send(headers);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('SIGNATURE_REPLAYED');
  });

  it('covers the query: a signed query cannot be changed in transit', async () => {
    const signed = signatureHeaders(supplier, 'GET', '/v1/claims?limit=5', '', now());
    expect((await a.call('GET', '/v1/claims?limit=5', { key, headers: signed })).status).toBe(200);
    const other = signatureHeaders(supplier, 'GET', '/v1/claims?limit=5', '', now());
    const tampered = await a.call('GET', '/v1/claims?limit=50', { key, headers: other });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('SIGNATURE_INVALID');
    const uncovered = signatureHeaders(supplier, 'GET', '/v1/claims', '', now());
    expect((await a.call('GET', '/v1/claims?limit=5', { key, headers: uncovered })).body.error.message).toMatch(
      /must cover @query/,
    );
  });

  it('does not ask other roles for a signature', async () => {
    expect((await a.call('GET', '/v1/vouchers')).status).toBe(200);
  });
});
