import type { ActorClient } from '../../store/redis/actor-client.js';
import type { Redemption } from '../../actors/voucher/messages.js';
import { AppError } from '../../errors/index.js';
import type { Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import { checkProductApproved, checkProductInPlan, type ProductRuleDeps } from './product-rule.js';
import { voucherRef } from '../../actors/voucher/messages.js';

/** What a redemption is checked against, over HTTP and USSD alike. */
export interface RedeemDeps extends ProductRuleDeps {
  suppliers: Registry<Supplier>;
  client: ActorClient;
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
