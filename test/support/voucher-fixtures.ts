import type { Api } from './api.js';
import { newSigner, type Signer } from './signer.js';

export function newDidKey(): string {
  return newSigner().did;
}

export interface Scheme {
  household: string;
  supplier: Signer;
  supplierDid: string;
  implementerKey: string;
  supplierKey: string;
}

/**
 * A setup step: its call, retried on 503 (a store that a loaded CI machine answered late, as a
 * client with Retry-After would), and a failure unless it succeeds or finds its record there: a step that failed quietly
 * showed up later as another error (a household "not registered" at the issue).
 */
async function step(a: Api, method: string, path: string, opts: Parameters<Api['call']>[2]) {
  for (let tries = 1; ; tries++) {
    const r = await a.call(method, path, opts);
    // Already there (a second scheme on the same service registers `stove-1` again): as wanted.
    if ((r.status >= 200 && r.status < 300) || r.status === 409) return r;
    if (r.status !== 503 || tries >= 20) {
      throw new Error(`setup ${method} ${path} failed: ${r.status} ${JSON.stringify(r.body)}`);
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

/** Registers a household, an authorized supplier, an approved product `stove-1`, and keys. */
export async function setUpScheme(a: Api): Promise<Scheme> {
  const household = newDidKey();
  const supplier = newSigner();
  const supplierDid = supplier.did;
  const implementerKey = (await step(a, 'POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key as string;
  const supplierKey = (await step(a, 'POST', '/v1/api-keys', { body: { role: 'supplier', did: supplierDid } })).body
    .key as string;
  a.signWith(supplierKey, supplier);
  const as = { key: implementerKey };
  await step(a, 'POST', '/v1/households', { ...as, body: { did: household } });
  await step(a, 'POST', '/v1/suppliers', { ...as, body: { did: supplierDid, name: 'Stoves', authorized: true } });
  await step(a, 'POST', '/v1/products', { ...as, body: { id: 'stove-1', name: 'Clean stove', approved: true } });
  return { household, supplier, supplierDid, implementerKey, supplierKey };
}

/** A verified certificate of `value` whose monitoring plan accepts `stove-1` and delivery credentials. */
export async function createCertificate(a: Api, implementerKey: string, certificateId: string, value: number) {
  await a.call('POST', '/v1/certificates', {
    key: implementerKey,
    body: {
      id: certificateId,
      projectId: 'did:ixo:entity:p1',
      verifiedReduction: value,
      status: 'verified',
      monitoringPlan: {
        approvedProducts: ['stove-1'],
        acceptedCredentialTypes: ['ProductDeliveryCredential'],
        claimWindowDays: 30,
      },
    },
  });
}

/** Creates a verified certificate of `value` and issues its voucher; returns the voucher id. */
export async function issueVoucher(a: Api, s: Scheme, certificateId: string, value: number): Promise<string> {
  await createCertificate(a, s.implementerKey, certificateId, value);
  const r = await a.call('POST', '/v1/vouchers/issue', {
    key: s.implementerKey,
    body: {
      recipientDid: s.household,
      emissionCertificateId: certificateId,
      value,
      attributes: { batchId: 'b', issuanceDate: '2026-01-01', expiryDate: '2099-12-31' },
    },
  });
  if (r.status !== 201) throw new Error(`issue failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id as string;
}
