import type { Asker } from '../actors/runtime/asker.js';
import type { Certificate, Household, Product, Supplier } from '../store/registries/records.js';
import type { Registry } from '../store/registries/registry.js';
import { apiKeyRoutes } from './auth/api-key-routes.js';
import type { ClaimReads } from './claim/claim-reads.js';
import { claimRoutes } from './claim/routes.js';
import type { Guards } from './auth/guard.js';
import type { RouteSpec } from './http/router.js';
import type { OperatorActions } from './operators/operator-actions.js';
import { registryRoutes } from './registries/routes.js';
import * as schemas from './registries/schemas.js';
import { surveyRoutes } from './survey/routes.js';
import type { SurveyReads } from './survey/survey-reads.js';
import type { VoucherPlans } from './voucher/product-rule.js';
import { voucherRoutes } from './voucher/routes.js';
import type { VoucherCodes } from './voucher/voucher-codes.js';
import type { VoucherReads } from './voucher/voucher-reads.js';

/** The registries of a scheme: who may hold, sell, be bought and back vouchers. */
export interface SchemeRegistries {
  households: Registry<Household>;
  suppliers: Registry<Supplier>;
  products: Registry<Product>;
  certificates: Registry<Certificate>;
}

export interface SchemeDeps extends SchemeRegistries {
  client: Asker;
  vouchers: VoucherReads;
  claims: ClaimReads;
  surveys: SurveyReads;
  codes: VoucherCodes;
  plans: VoucherPlans;
  actions: OperatorActions;
  clock: () => Date;
}

const staff = ['admin', 'implementer'] as const;
const readers = ['admin', 'implementer', 'regulator'] as const;

/**
 * The routes of a voucher scheme (spec 000): API keys, the four registries, the vouchers, the
 * claims of their deliveries and the survey campaigns. On PostgreSQL and Redis in a deployment (products.ts), on memory in the product
 * tier (hearth-on-memory.ts): the same routes over either.
 */
export function schemeRoutes(g: Guards, d: SchemeDeps): RouteSpec[] {
  return [
    ...apiKeyRoutes(g, g.keys, d.suppliers, d.actions),
    ...registryRoutes(g, {
      path: '/v1/households',
      name: 'household',
      registry: d.households,
      create: schemas.householdCreate,
      update: schemas.householdUpdate,
      readRoles: readers,
      writeRoles: staff,
      mayReadOne: (who, id) => who.role === 'household' && who.did === id,
    }),
    ...registryRoutes(g, {
      path: '/v1/suppliers',
      name: 'supplier',
      registry: d.suppliers,
      create: schemas.supplierCreate,
      update: schemas.supplierUpdate,
      readRoles: readers,
      writeRoles: staff,
      mayReadOne: (who, id) => who.role === 'supplier' && who.did === id,
    }),
    ...registryRoutes(g, {
      path: '/v1/products',
      name: 'product',
      registry: d.products,
      create: schemas.productCreate,
      update: schemas.productUpdate,
      readRoles: ['admin', 'implementer', 'regulator', 'supplier', 'household'],
      writeRoles: staff,
    }),
    ...registryRoutes(g, {
      path: '/v1/certificates',
      name: 'certificate',
      registry: d.certificates,
      create: schemas.certificateCreate,
      update: schemas.certificateUpdate,
      readRoles: readers,
      writeRoles: staff,
    }),
    ...voucherRoutes(g, {
      client: d.client,
      reads: d.vouchers,
      households: d.households,
      certificates: d.certificates,
      suppliers: d.suppliers,
      products: d.products,
      plans: d.plans,
      codes: d.codes,
      clock: d.clock,
    }),
    ...claimRoutes(g, {
      client: d.client,
      vouchers: d.vouchers,
      claims: d.claims,
      suppliers: d.suppliers,
      certificates: d.certificates,
      clock: d.clock,
    }),
    ...surveyRoutes(g, { client: d.client, reads: d.surveys, households: d.households }),
  ];
}
