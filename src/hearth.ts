import { processId } from './process-id.js';
import { runtimeOptions } from './runtime-options.js';
import { ActorClient } from './store/redis/actor-client.js';
import { createKeys } from './store/redis/keys.js';
import { connectRedis, createRedis } from './store/redis/redis.js';
import { redisRegistryChanges, registryChangesChannel } from './store/registries/registry-changes.js';
import { assertPartitionCounts } from './store/redis/partition-counts.js';
import { OutboxRelay } from './store/redis/outbox-relay.js';
import { SagaSweep } from './gateways/conversion/saga-sweep.js';
import { redisRuntimeAdapters } from './store/redis/runtime-adapters.js';
import { Runtime } from './actors/runtime/runtime.js';
import { createPgTellOutbox } from './store/tell-outbox.js';
import type { ActorDefinition } from './actors/runtime/types.js';
import { actors as defaultActors } from './actors/registry.js';
import { ussdSessionActor } from './actors/ussd/index.js';
import type { Config } from './config.js';
import { ApiKeyStore, hashSecret } from './gateways/auth/api-key-store.js';
import { pgApiKeyRows } from './gateways/auth/api-key-rows.js';
import { RateLimits, redisBuckets } from './gateways/auth/rate-limits.js';
import { docsRoutes } from './gateways/docs/routes.js';
import { HttpServer } from './gateways/http/server.js';
import { corsHeaders } from './gateways/http/cors.js';
import { startOracleGateway } from './gateways/oracle/gateway.js';
import type { OraclePlugin } from './gateways/oracle/agent/plugin.js';
import { productRoutes } from './gateways/products.js';
import { Router } from './gateways/http/router.js';
import { diagnosticsRoutes } from './gateways/http/routes/diagnostics.js';
import { healthRoute } from './gateways/http/routes/health.js';
import { metricsRoute } from './gateways/http/routes/metrics.js';
import type { Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { version } from './version.js';
import { assertDatabaseReachable, createSql, sessionTarget } from './store/db.js';
import { pgCommitLane } from './store/commit-lane.js';
import { DatabaseWatch } from './store/database-watch.js';
import { migrate } from './store/migrate.js';
import { createPgSnapshotStore } from './store/snapshot-store.js';
import { LedgerReads } from './ledger/ledger-reads.js';
import { startLedger } from './ledger/start-ledger.js';
import { startLedgerOnThread } from './ledger/ledger-on-thread.js';
import { OverviewHistory } from './gateways/console/overview-history.js';
import { consoleStaticRoutes } from './gateways/console/static-routes.js';

export interface Hearth {
  /** The bound HTTP port. */
  readonly port: number;
  readonly runtime: Runtime | undefined;
  readonly client: ActorClient | undefined;
  /** Idempotent: gateway first (stop taking requests), then workers, then connections. */
  close(): Promise<void>;
}

export interface StartOptions {
  actors?: readonly ActorDefinition[];
  /** Runs the migrations before starting (default true; `npm run migrate` does it separately too). */
  migrate?: boolean;
  /**
   * hearth's clock (default: the real time): what decides expiry and the caches' lifetimes, so a
   * test moves it instead of sleeping. Timeouts, back-off, leases and metrics keep the real time.
   */
  clock?: () => Date;
  /** Oracle plugins (routes, auth-excluded routes, agent tools, checks before a turn). */
  plugins?: readonly OraclePlugin[];
}

/** The composition root: config → store → redis → runtime → gateway. */
export async function startHearth(config: Config, log: Logger, opts: StartOptions = {}): Promise<Hearth> {
  const actors = opts.actors ?? [
    ...defaultActors,
    ussdSessionActor({ pinKey: config.PIN_ENCRYPTION_KEY, idleMs: config.USSD_IDLE_SECONDS * 1000 }),
  ];
  const clock = opts.clock ?? (() => new Date());
  const keys = createKeys(config.REDIS_PREFIX);
  const metrics = createMetrics();
  const cleanups: Array<() => Promise<void> | void> = [];
  const sql = createSql({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA });
  cleanups.push(() => sql.end({ timeout: 5 }));

  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'cleanup failed');
      }
    }
  };

  try {
    await assertDatabaseReachable(sql);
    if (opts.migrate ?? true) await migrate(sql, config.DATABASE_SCHEMA, log);
    const database = new DatabaseWatch({
      url: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      log,
      intervalMs: config.DATABASE_PROBE_INTERVAL_MS,
      timeoutMs: config.DATABASE_PROBE_TIMEOUT_MS,
    });
    database.start();
    cleanups.push(() => database.close());
    const redis = await connectRedis(createRedis(config.REDIS_URL, 'hearth-commands', { log }), config.REDIS_URL);
    cleanups.push(() => redis.disconnect());
    const partitionsOf = (type: string): number =>
      actors.find((a) => a.type === type)?.partitions ?? config.ACTOR_PARTITIONS;
    const types = actors.map((a) => ({ type: a.type, partitions: partitionsOf(a.type) }));
    await assertPartitionCounts(redis, keys, types);

    let runtime: Runtime | undefined;
    if (config.ROLE !== 'gateway') {
      // The group commit's own connections, one per commit in flight (see GroupCommitter).
      const commitLanes = [1, 2].map(() => {
        const lane = pgCommitLane({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA });
        cleanups.push(() => lane.end());
        return lane;
      });
      // Deletes of posted tells: one at a time, none waiting for its WAL flush (tell-outbox.ts).
      const forgetSql = createSql({
        url: config.DATABASE_URL,
        schema: config.DATABASE_SCHEMA,
        max: 1,
        settings: { synchronous_commit: 'off' },
      });
      cleanups.push(() => forgetSql.end({ timeout: 5 }));
      // Started before the runtime, so the first commit's tells find it.
      const relay = new OutboxRelay({
        outbox: createPgTellOutbox(sql, forgetSql),
        redis,
        keys,
        partitionsOf,
        types: new Set(actors.map((a) => a.type)),
        log: log.child({ role: 'worker', part: 'outbox-relay' }),
        // A commit's tells are posted by its worker at once; the poll takes what is 2 s old.
        options: { batch: 256, pollMs: 500, graceMs: 2_000 },
      }).start();
      cleanups.push(() => relay.close());
      const sweep = new SagaSweep({
        sql,
        log: log.child({ role: 'worker', part: 'saga-sweep' }),
        clock,
        options: { resumeAfterMs: config.SAGA_RESUME_AFTER_MS },
      }).start();
      cleanups.push(() => sweep.close());
      const workerId = processId('worker');
      runtime = new Runtime({
        workerId,
        ...redisRuntimeAdapters({
          redis,
          connect: (name, blocking) => createRedis(config.REDIS_URL, name, { blocking, log }),
          keys,
          workerId,
          leaseTtlMs: config.LEASE_TTL_MS,
          types: actors.map((a) => a.type),
          log: log.child({ role: 'worker' }),
        }),
        store: createPgSnapshotStore(sql),
        commitLanes,
        log: log.child({ role: 'worker' }),
        metrics,
        actors,
        clock,
        database,
        onCommitted: (batch) => relay.publish(batch),
        options: runtimeOptions(config),
      });
      await runtime.start();
      const r = runtime;
      cleanups.push(() => r.close());
      // On a thread of its own (ledger-on-thread.ts), unless time is the caller's (tests that
      // move the clock): a thread cannot share a function, and those must see their blocks' times.
      const ledger = opts.clock
        ? await startLedger(config, {
            sql,
            log: log.child({ role: 'worker', actor: 'ledger' }),
            ownerId: processId('ledger'),
            clock,
          })
        : await startLedgerOnThread(config, { log, ownerId: processId('ledger') });
      cleanups.push(() => ledger.close());
    }

    let client: ActorClient | undefined;
    if (config.ROLE !== 'worker') {
      const gatewayId = processId('gateway');
      const reader = await connectRedis(
        createRedis(config.REDIS_URL, `${gatewayId}:replies`, { blocking: true, log }),
        config.REDIS_URL,
      );
      client = new ActorClient(
        redis,
        reader,
        keys,
        gatewayId,
        { defaultTimeoutMs: config.ASK_TIMEOUT_MS, maxInFlight: config.ASK_MAX_IN_FLIGHT, partitionsOf },
        log.child({ role: 'gateway' }),
        metrics,
      );
      await client.start();
      const c = client;
      cleanups.push(() => c.close());
    }

    // Every role serves /health and /metrics (workers are scraped too); only gateways serve the API.
    const ledgerReads = new LedgerReads(sql);
    const health = healthRoute({
      redis,
      sql,
      database,
      // Which of DATABASE_URL's hosts is the primary, when it lists several (pg_auto_failover).
      ...(sessionTarget(config.DATABASE_URL).target_session_attrs
        ? { primary: () => database.primary()?.position }
        : {}),
      log,
      details: { ledger: async () => ({ backend: config.LEDGER_BACKEND, ...(await ledgerReads.status()) }) },
    });
    const router = new Router().add(health).add(
      metricsRoute({
        metrics,
        redis,
        keys,
        owned: () => runtime?.readPartitions() ?? [],
        ...(runtime ? { ledger: () => ledgerReads.status() } : {}),
      }),
    );
    let oracle: ReturnType<typeof startOracleGateway> | undefined;
    if (client) {
      const adminHash = config.HEARTH_ADMIN_KEY ? hashSecret(config.HEARTH_ADMIN_KEY) : undefined;
      const keyStore = new ApiKeyStore(pgApiKeyRows(sql), adminHash, undefined, () => clock().getTime());
      const ussd = {
        pinKey: config.PIN_ENCRYPTION_KEY,
        serviceCodes: config.ZM_SERVICE_CODES,
        idleMs: config.USSD_IDLE_SECONDS * 1000,
        ratePerMinute: config.USSD_RATE_PER_MINUTE,
        timeZone: config.USSD_TIME_ZONE,
        defaultCountry: config.USSD_DEFAULT_COUNTRY,
        deadlineMs: config.REQUEST_DEADLINE_MS,
      };
      const limits = new RateLimits(
        redisBuckets(redis),
        keys,
        {
          apiKeyPerMinute: config.RATE_LIMIT_API_KEY_PER_MINUTE,
          didPerMinute: config.RATE_LIMIT_DID_PER_MINUTE,
          authFailuresPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
        },
        log.child({ role: 'gateway' }),
      );
      // Its own connection: a subscribed one takes no other command.
      const registryChanges = redisRegistryChanges(
        redis,
        createRedis(config.REDIS_URL, 'hearth-registry-changes', { blocking: true, log }),
        registryChangesChannel(keys),
        log.child({ role: 'gateway' }),
      );
      cleanups.push(() => registryChanges.close());
      const overview = new OverviewHistory(
        metrics,
        async () => (await ledgerReads.status()).queuedEntries,
        Date.now,
        () => {
          const primary = database.primary();
          return {
            primary: primary ? `${primary.address}:${primary.port}` : null,
            position: primary?.position || null,
            down: database.current() ?? null,
          };
        },
      ).start();
      cleanups.push(() => overview.stop());
      for (const r of productRoutes({
        sql,
        redis,
        keys,
        apiKeys: keyStore,
        client,
        clock,
        log,
        ussd,
        limits,
        metrics,
        types,
        overview,
        redisUrl: config.REDIS_URL,
        conversions: { stablecoin: config.STABLECOIN_SYMBOL, waitMs: config.CONVERSION_WAIT_MS },
        registryChanges,
      })) {
        router.add(r);
      }
      for (const r of consoleStaticRoutes()) router.add(r);
      if (config.HEARTH_DIAGNOSTICS) for (const r of diagnosticsRoutes(client)) router.add(r);
      oracle = startOracleGateway({
        config,
        sql,
        redis,
        keys,
        client,
        clock,
        log,
        plugins: opts.plugins,
        limits,
        metrics,
      });
      for (const r of oracle.routes) router.add(r);
      for (const r of docsRoutes(router, version)) router.add(r);
    }
    const server = new HttpServer({
      router,
      log: log.child({ role: config.ROLE }),
      metrics,
      maxBodyBytes: config.MAX_BODY_BYTES,
      deadlineMs: config.REQUEST_DEADLINE_MS,
      commonHeaders: corsHeaders(config.CORS_ORIGIN),
      database,
    });
    // socket.io shares the app and the port; closing stops HTTP first, then the sockets, then the hub.
    if (oracle) {
      const sockets = oracle.attach(server.app);
      cleanups.push(() => oracle?.close());
      cleanups.push(() => sockets.close());
    }
    const port = await server.listen(config.HOST, config.PORT);
    cleanups.push(() => server.close(config.SHUTDOWN_GRACE_MS));
    log.info({ port, role: config.ROLE }, 'hearth listening');

    return { port, runtime, client, close };
  } catch (err) {
    await close();
    throw err;
  }
}
