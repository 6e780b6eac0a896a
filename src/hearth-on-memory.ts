import { actors as defaultActors } from './actors/registry.js';
import { MemoryActorClient } from './actors/runtime/memory-actor-client.js';
import { MemoryLeaseTable } from './actors/runtime/memory-leases.js';
import { MemoryMailboxes } from './actors/runtime/memory-mailbox.js';
import { memoryTells } from './actors/runtime/memory-tells.js';
import { Runtime } from './actors/runtime/runtime.js';
import type { ActorDefinition } from './actors/runtime/types.js';
import type { Config } from './config.js';
import { ApiKeyStore, hashSecret } from './gateways/auth/api-key-store.js';
import type { Guards } from './gateways/auth/guard.js';
import { memoryApiKeyRows } from './gateways/auth/memory-api-key-rows.js';
import { memoryBuckets } from './gateways/auth/memory-buckets.js';
import { memoryReplayGuard } from './gateways/auth/memory-replay-guard.js';
import { RateLimits } from './gateways/auth/rate-limits.js';
import { SupplierSignatures } from './gateways/auth/supplier-signatures.js';
import { docsRoutes } from './gateways/docs/routes.js';
import { MemoryClaimReads } from './gateways/claim/claim-reads.js';
import { corsHeaders } from './gateways/http/cors.js';
import { IdempotencyStore } from './gateways/http/idempotency.js';
import { memoryIdempotencyRows } from './gateways/http/memory-idempotency-rows.js';
import { Router } from './gateways/http/router.js';
import { HttpServer } from './gateways/http/server.js';
import { memoryOperatorActions } from './gateways/operators/operator-actions.js';
import { schemeRoutes, type SchemeRegistries } from './gateways/scheme-routes.js';
import { MemorySurveyReads } from './gateways/survey/survey-reads.js';
import { MemoryVoucherReads } from './gateways/voucher/memory-voucher-reads.js';
import { VoucherPlans } from './gateways/voucher/product-rule.js';
import { MemoryVoucherCodes } from './gateways/voucher/voucher-codes.js';
import { processId } from './process-id.js';
import { runtimeOptions } from './runtime-options.js';
import type { Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { MemorySnapshotStore } from './store/memory-snapshot-store.js';
import { createKeys } from './store/redis/keys.js';
import { memoryRegistryRows } from './store/registries/memory-registry-rows.js';
import { certificateTable, householdTable, productTable, supplierTable } from './store/registries/records.js';
import { Registry } from './store/registries/registry.js';
import { version } from './version.js';

export interface HearthOnMemory {
  readonly port: number;
  readonly runtime: Runtime;
  /** What the actors committed: snapshots, records, outbox rows (ledger entries among them). */
  readonly store: MemorySnapshotStore;
  close(): Promise<void>;
}

/**
 * hearth's product tier with no services: the voucher scheme's routes (API keys, registries,
 * vouchers, claims, surveys), the gateway's guards (keys, signatures, limits, Idempotency-Key) and the actors,
 * each on its in-memory adapter: mailboxes, leases, the snapshot store, registry rows, keys.
 * For product suites that do not test Redis or PostgreSQL themselves (test/product): the same
 * routes and actors as `startHearth`, in milliseconds. Not for deployments: nothing survives
 * the process, and limits and replay checks hold per process.
 */
export async function startHearthOnMemory(
  config: Config,
  log: Logger,
  opts: { clock?: () => Date; actors?: readonly ActorDefinition[] } = {},
): Promise<HearthOnMemory> {
  const clock = opts.clock ?? (() => new Date());
  const now = () => clock().getTime();
  const actors = opts.actors ?? defaultActors;
  const metrics = createMetrics();
  const partitionsOf = (type: string): number =>
    actors.find((a) => a.type === type)?.partitions ?? config.ACTOR_PARTITIONS;
  const broker = new MemoryMailboxes();
  const store = new MemorySnapshotStore();
  const client = new MemoryActorClient(
    broker,
    processId('gateway'),
    { defaultTimeoutMs: config.ASK_TIMEOUT_MS, maxInFlight: config.ASK_MAX_IN_FLIGHT, partitionsOf },
    metrics,
  );
  const workerId = processId('worker');
  const runtime = new Runtime({
    workerId,
    mailboxOf: (type) => broker.mailbox(type, workerId),
    leases: new MemoryLeaseTable().forWorker(
      workerId,
      config.LEASE_TTL_MS,
      actors.map((a) => a.type),
    ),
    store,
    log: log.child({ role: 'worker' }),
    metrics,
    actors,
    clock,
    onCommitted: memoryTells(client, log.child({ role: 'worker' })),
    options: runtimeOptions(config),
  });
  await runtime.start();

  const registries: SchemeRegistries = {
    households: new Registry(memoryRegistryRows(householdTable)),
    suppliers: new Registry(memoryRegistryRows(supplierTable)),
    products: new Registry(memoryRegistryRows(productTable)),
    certificates: new Registry(memoryRegistryRows(certificateTable)),
  };
  const adminHash = config.HEARTH_ADMIN_KEY ? hashSecret(config.HEARTH_ADMIN_KEY) : undefined;
  const g: Guards = {
    keys: new ApiKeyStore(memoryApiKeyRows(), adminHash, undefined, now),
    limits: new RateLimits(
      memoryBuckets(),
      createKeys(config.REDIS_PREFIX),
      {
        apiKeyPerMinute: config.RATE_LIMIT_API_KEY_PER_MINUTE,
        didPerMinute: config.RATE_LIMIT_DID_PER_MINUTE,
        authFailuresPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
      },
      log,
    ),
    idempotency: new IdempotencyStore(memoryIdempotencyRows(), config.PIN_ENCRYPTION_KEY),
    signatures: new SupplierSignatures(registries.suppliers, memoryReplayGuard(), clock),
  };
  const vouchers = new MemoryVoucherReads(store);
  const router = new Router();
  const routes = schemeRoutes(g, {
    ...registries,
    client,
    vouchers,
    claims: new MemoryClaimReads(store),
    surveys: new MemorySurveyReads(store),
    codes: new MemoryVoucherCodes(),
    plans: new VoucherPlans(vouchers, registries.certificates),
    actions: memoryOperatorActions(),
    clock,
  });
  for (const r of routes) router.add(r);
  for (const r of docsRoutes(router, version)) router.add(r);
  const server = new HttpServer({
    router,
    log: log.child({ role: 'gateway' }),
    metrics,
    maxBodyBytes: config.MAX_BODY_BYTES,
    deadlineMs: config.REQUEST_DEADLINE_MS,
    commonHeaders: corsHeaders(config.CORS_ORIGIN),
  });
  const port = await server.listen(config.HOST, config.PORT);
  let closed: Promise<void> | undefined;
  return {
    port,
    runtime,
    store,
    close: () =>
      (closed ??= (async () => {
        await server.close(config.SHUTDOWN_GRACE_MS);
        await client.close();
        await runtime.close();
      })()),
  };
}
