import { AppError } from '../../errors/index.js';
import type { Certificate, Product } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherReads } from './voucher-reads.js';
import { TtlCache } from '../../ttl-cache.js';

export interface ProductRuleDeps {
  products: Registry<Product>;
  plans: VoucherPlans;
}

/**
 * The monitoring plan a voucher is held to, read on every redemption without a query: which
 * certificate a voucher belongs to never changes (kept in memory), and the certificate comes
 * from a registry cached 2 s (a plan changed elsewhere shows within that).
 */
export class VoucherPlans {
  private readonly certificateOf = new TtlCache<string, string>({ maxEntries: 100_000 });

  constructor(
    private readonly vouchers: VoucherReads,
    /** Certificates, cached (see {@link Registry}). */
    private readonly certificates: Registry<Certificate>,
  ) {}

  /** The voucher's certificate id and its plan; undefined for an unknown voucher. */
  async planOf(
    voucherId: string,
  ): Promise<{ certificateId: string; plan?: Certificate['monitoringPlan'] } | undefined> {
    let certificateId = this.certificateOf.get(voucherId);
    if (certificateId === undefined) {
      certificateId = (await this.vouchers.get(voucherId))?.emissionCertificateId;
      if (certificateId === undefined) return undefined;
      this.certificateOf.set(voucherId, certificateId);
    }
    const plan = (await this.certificates.get(certificateId))?.monitoringPlan;
    return { certificateId, ...(plan ? { plan } : {}) };
  }
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
export async function checkProductInPlan(
  d: Pick<ProductRuleDeps, 'plans'>,
  voucherId: string,
  productId: string,
): Promise<void> {
  const found = await d.plans.planOf(voucherId);
  if (found?.plan && !found.plan.approvedProducts.includes(productId)) {
    throw new AppError(
      'PRODUCT_NOT_APPROVED',
      `product ${productId} is not in the monitoring plan of this voucher's certificate, so its delivery could not be claimed`,
      { productId, certificateId: found.certificateId },
    );
  }
}
