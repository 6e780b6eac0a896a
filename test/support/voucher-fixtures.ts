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

/** Registers a household, an authorized supplier, an approved product `stove-1`, and keys. */
export async function setUpScheme(a: Api): Promise<Scheme> {
  const household = newDidKey();
  const supplier = newSigner();
  const supplierDid = supplier.did;
  const implementerKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key as string;
  const supplierKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplierDid } })).body
    .key as string;
  a.signWith(supplierKey, supplier);
  const as = { key: implementerKey };
  await a.call('POST', '/v1/households', { ...as, body: { did: household } });
  await a.call('POST', '/v1/suppliers', { ...as, body: { did: supplierDid, name: 'Stoves', authorized: true } });
  await a.call('POST', '/v1/products', { ...as, body: { id: 'stove-1', name: 'Clean stove', approved: true } });
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
