import { AppError } from '../../errors/index.js';
import type { Certificate, Product } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherReads } from '../../store/voucher-reads.js';

export interface ProductRuleDeps {
  products: Registry<Product>;
  certificates: Registry<Certificate>;
  vouchers: VoucherReads;
}

/**
 * Redemption rule 4, first half: the product is approved at all. Checked before anything about
 * the voucher, so a caller learns nothing about vouchers from it.
 */
export async function checkProductApproved(d: Pick<ProductRuleDeps, 'products'>, productId: string): Promise<void> {
  const product = await d.products.get(productId);
  if (!product?.approved) {
    throw new AppError('PRODUCT_NOT_APPROVED', `product ${productId} is not approved for the scheme`);
  }
}

/**
 * Redemption rule 4, second half: the product is in the monitoring plan of the voucher's
 * certificate, the scheme the voucher belongs to. Claim rule 2 holds every claim to that plan:
 * a redemption of another product would take the household's balance for a delivery the
 * supplier could never claim. An unknown voucher passes here: the voucher actor answers it.
 */
export async function checkProductInPlan(d: ProductRuleDeps, voucherId: string, productId: string): Promise<void> {
  const voucher = await d.vouchers.get(voucherId);
  if (!voucher) return;
  const plan = (await d.certificates.get(voucher.emissionCertificateId))?.monitoringPlan;
  if (plan && !plan.approvedProducts.includes(productId)) {
    throw new AppError(
      'PRODUCT_NOT_APPROVED',
      `product ${productId} is not in the monitoring plan of this voucher's certificate, so its delivery could not be claimed`,
      { productId, certificateId: voucher.emissionCertificateId },
    );
  }
}
