import type { RedisClient } from '../store/redis/redis.js';
import type { Asker } from '../actors/runtime/asker.js';
import type { Keys } from '../store/redis/keys.js';
import { SupplierSignatures } from './auth/supplier-signatures.js';
import type { Sql } from '../store/db.js';
import { certificateTable, householdTable, productTable, supplierTable } from '../store/registries/records.js';
import type { RegistryChanges } from '../store/registries/registry-changes.js';
import { Registry } from '../store/registries/registry.js';
import { pgRegistryRows } from '../store/registries/pg-registry-rows.js';
import { PgVoucherReads } from './voucher/voucher-reads.js';
import { PgVoucherCodes } from './voucher/voucher-codes.js';
import type { ApiKeyStore } from './auth/api-key-store.js';
import type { RateLimits } from './auth/rate-limits.js';
import type { RouteSpec } from './http/router.js';
import { IdempotencyStore } from './http/idempotency.js';
import { pgIdempotencyRows } from './http/idempotency-rows.js';
import { schemeRoutes } from './scheme-routes.js';
import { PgSurveyReads } from './survey/survey-reads.js';
import { PgClaimReads } from './claim/claim-reads.js';
import { LedgerReads } from '../ledger/ledger-reads.js';
import { ledgerRoutes } from './ledger/routes.js';
import { conversionRoutes } from './conversion/routes.js';
import { ConversionReads } from './conversion/conversion-reads.js';
import { treasuryRoutes } from './conversion/treasury-routes.js';
import { orderRoutes } from './conversion/order-routes.js';
import { counterpartyRoutes } from './conversion/counterparty-routes.js';
import { itmoRoutes } from './conversion/itmo-routes.js';
import { Counterparties } from '../store/counterparties.js';
import { ussdRoutes } from './ussd/routes.js';
import { ussdDeps, type UssdOptions } from './ussd/deps.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { DeadLetters } from './operators/dead-letters.js';
import { pgOperatorActions } from './operators/operator-actions.js';
import { operatorRoutes } from './operators/routes.js';
import { VoucherPlans } from './voucher/product-rule.js';
import { consoleDataRoutes } from './console/routes.js';
import type { OverviewHistory } from './console/overview-history.js';
import { authKeys } from './auth/auth-keys.js';

/** Every route of spec 000 (vouchers, claims, surveys), the registries and keys behind it, and the ledger. */
export interface ProductDeps {
  sql: Sql;
  redis: RedisClient;
  keys: Keys;
  apiKeys: ApiKeyStore;
  client: Asker;
  clock: () => Date;
  log: Logger;
  ussd: UssdOptions;
  limits: RateLimits;
  metrics: Metrics;
  /** The actor types and their partition counts (the operators' dead letters). */
  types: ReadonlyArray<{ type: string; partitions: number }>;
  /** The console's readings of this gateway, and where its tails connect. */
  overview: OverviewHistory;
  redisUrl: string;
  conversions: { stablecoin: string; waitMs: number };
  /** The gateways' announcements of changed registry records (without: cached copies last 2 s). */
  registryChanges?: RegistryChanges;
}

export function productRoutes({
  sql,
  redis,
  keys: redisKeys,
  apiKeys: keys,
  client,
  clock,
  log,
  ussd,
  limits,
  metrics,
  types,
  overview,
  redisUrl,
  conversions,
  registryChanges,
}: ProductDeps): RouteSpec[] {
  const now = () => clock().getTime();
  const households = new Registry(pgRegistryRows(sql, householdTable));
  // Read on every redemption and supplier request: kept 2 s, or while changes are heard until one
  // is announced (registry-changes.ts).
  const suppliers = new Registry(pgRegistryRows(sql, supplierTable), 2_000, now, registryChanges);
  const g = {
    keys,
    limits,
    idempotency: new IdempotencyStore(pgIdempotencyRows(sql), ussd.pinKey),
    signatures: new SupplierSignatures(
      suppliers,
      async (d, ttlSeconds) =>
        (await redis.set(authKeys.seenSignature(redisKeys, d), '1', 'EX', ttlSeconds, 'NX')) === 'OK',
      clock,
    ),
  };
  const products = new Registry(pgRegistryRows(sql, productTable), 2_000, now, registryChanges);
  // Read on every redemption (its plan, rule 4), kept as suppliers and products are: with one
  // certificate per voucher, a copy lasting 2 s alone was a query on most redemptions of a spread load.
  const certificates = new Registry(pgRegistryRows(sql, certificateTable), 2_000, now, registryChanges);
  const vouchers = new PgVoucherReads(sql);
  const plans = new VoucherPlans(vouchers, certificates);
  const codes = new PgVoucherCodes(sql);
  const actions = pgOperatorActions(sql);
  const conversionReads = new ConversionReads(sql);
  const ledgerReads = new LedgerReads(sql);
  const counterparties = new Counterparties(sql, ussd.pinKey);
  return [
    ...schemeRoutes(g, {
      households,
      suppliers,
      products,
      certificates,
      client,
      vouchers,
      claims: new PgClaimReads(sql),
      surveys: new PgSurveyReads(sql),
      codes,
      plans,
      actions,
      clock,
    }),
    ...ledgerRoutes(g, ledgerReads),
    ...conversionRoutes(g, { client, reads: conversionReads, ...conversions }),
    ...treasuryRoutes(g, { client, certificates, clock, ...conversions }),
    ...orderRoutes(g, { client, reads: conversionReads, counterparties, ...conversions }),
    ...counterpartyRoutes(g, { client, counterparties, clock }),
    ...itmoRoutes(g, { client, reads: conversionReads, ledger: ledgerReads }),
    ...operatorRoutes(g, { deadLetters: new DeadLetters(redis, redisKeys, types), actions }),
    ...consoleDataRoutes(g, {
      sql,
      redis,
      redisUrl,
      keys: redisKeys,
      metrics,
      types,
      overview,
      actions,
      ussdIdleMs: ussd.idleMs,
      clock,
    }),
    ...ussdRoutes(
      g,
      ussdDeps({
        sql,
        redis,
        keys: redisKeys,
        client,
        clock,
        log,
        ussd,
        vouchers,
        products,
        plans,
        suppliers,
        codes,
        metrics,
        // A phone's conversion waits at most half the hop's deadline, then says it is processing.
        wallet: {
          client,
          reads: conversionReads,
          stablecoin: conversions.stablecoin,
          waitMs: Math.min(conversions.waitMs, Math.floor(ussd.deadlineMs / 2)),
        },
      }),
      ussd.deadlineMs,
    ),
  ];
}
