import type { Asker } from '../../actors/runtime/asker.js';
import type { Redemption, VoucherState } from '../../actors/voucher/messages.js';
import { toMicro } from '../../actors/voucher/money.js';
import { voucherIdFor } from '../../actors/voucher/representation.js';
import { AppError } from '../../errors/index.js';
import type { Certificate, Household, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import { checkProductApproved, checkProductInPlan, type ProductRuleDeps } from './product-rule.js';
import { voucherRef } from '../../actors/voucher/messages.js';

/**
 * The voucher product's service: what its HTTP routes, the USSD channel and the oracle's tools
 * call (issue, redeem, and the reads and rules re-exported below). Another product imports
 * vouchers through this file only (test/unit/import-rules.test.ts).
 */
export { PgVoucherReads, type VoucherReads } from './voucher-reads.js';
export type { VoucherPlans } from './product-rule.js';
export type { VoucherCodes } from './voucher-codes.js';
export { approvedProducts } from './product-reads.js';

/** What an issuance is checked against. */
export interface IssueDeps {
  client: Asker;
  households: Registry<Household>;
  certificates: Registry<Certificate>;
}

export interface IssueRequest {
  recipientDid: string;
  emissionCertificateId: string;
  /** Decimal, as the request gave it. */
  value: number;
  attributes: VoucherState['attributes'];
  /** What the voucher remembers the request by: a retry is answered, not applied again. */
  requestId: string;
}

/**
 * The three issuance rules, in the spec's order (the certificate exists and is verified, the
 * recipient is a registered household, the value equals the verified reduction), then the voucher
 * actor's own (one voucher per certificate).
 */
export async function issueVoucher(d: IssueDeps, r: IssueRequest) {
  const certificate = await d.certificates.get(r.emissionCertificateId);
  if (!certificate) throw new AppError('CERTIFICATE_NOT_FOUND', `no certificate ${r.emissionCertificateId}`);
  if (certificate.status !== 'verified') {
    throw new AppError('CERTIFICATE_NOT_VERIFIED', `certificate ${certificate.id} is ${certificate.status}`);
  }
  if (!(await d.households.get(r.recipientDid))) {
    throw new AppError('HOUSEHOLD_NOT_REGISTERED', `${r.recipientDid} is not a registered household`);
  }
  if (toMicro(r.value) !== toMicro(certificate.verifiedReduction)) {
    throw new AppError('VALUE_MISMATCH', 'value must equal the verified reduction of the certificate', {
      value: r.value,
      verifiedReduction: certificate.verifiedReduction,
    });
  }
  return d.client.ask(voucherRef, voucherIdFor(certificate.id), {
    kind: 'issue',
    requestId: r.requestId,
    recipientDid: r.recipientDid,
    emissionCertificateId: certificate.id,
    value: toMicro(r.value),
    attributes: r.attributes,
  });
}

/** What a redemption is checked against, over HTTP and USSD alike. */
export interface RedeemDeps extends ProductRuleDeps {
  suppliers: Registry<Supplier>;
  client: Asker;
}

export interface RedeemRequest {
  voucherId: string;
  supplierDid: string;
  productId: string;
  /** Micro-units. */
  amount: number;
  /** What the voucher remembers the request by: a retry is answered, not applied again. */
  requestId: string;
}

/**
 * Redemption rules 2 and 4's first half, about the caller and the product: checked before
 * anything about the voucher, so an unauthorized supplier learns nothing about vouchers.
 */
export async function checkRedeemer(d: RedeemDeps, supplierDid: string, productId: string): Promise<void> {
  const supplier = await d.suppliers.get(supplierDid);
  if (!supplier?.authorized) throw new AppError('SUPPLIER_NOT_AUTHORIZED', 'this supplier is not authorized to redeem');
  await checkProductApproved(d, productId);
}

/**
 * Rule 4's second half (the product is in the plan of the voucher's certificate), then the voucher
 * actor's own rules (exists, active, not expired, within the balance) and the redemption itself.
 * Call {@link checkRedeemer} first.
 */
export async function redeem(d: RedeemDeps, r: RedeemRequest): Promise<Redemption> {
  await checkProductInPlan(d, r.voucherId, r.productId);
  return d.client.ask(voucherRef, r.voucherId, {
    kind: 'redeem',
    requestId: r.requestId,
    supplierDid: r.supplierDid,
    productId: r.productId,
    amount: r.amount,
  });
}
