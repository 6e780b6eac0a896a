import type { RedisClient } from '../../store/redis/redis.js';
import type { Asker } from '../../actors/runtime/asker.js';
import type { Config } from '../../config.js';
import type { Sql } from '../../store/db.js';
import { ChatReads } from './chat-reads.js';
import { createUcanAuthenticator, redisNonceGuard, type UcanAuthenticator } from '../auth/ucan/index.js';
import { ixoDidResolver } from '../auth/ucan/ixo-resolver.js';
import type { RouteSpec } from '../http/router.js';
import { landingRoute } from './landing.js';
import { modelsRoute } from './models-route.js';
import { modelCatalog } from './agent/models.js';
import { sessionRoutes } from './session-routes.js';
import { messageRoutes } from './message-routes.js';
import type { Keys } from '../../store/redis/keys.js';
import type { Logger } from '../../log.js';
import type { ChatEventHub } from './agent/chat-events.js';
import { agentFor } from './agent/agent-for.js';
import { oracleTools } from './agent/tools.js';
import { creditsPlugin, httpSubscriptions } from './agent/credits-plugin.js';
import type { OraclePlugin } from './agent/plugin.js';
import { pluginRoutes } from './plugin-routes.js';
import { PgVoucherReads } from '../voucher/service.js';
import { delegationRoutes } from './delegation-routes.js';
import { historyWithin } from './agent/history.js';
import { chatHistory } from './chat-transcript.js';
import type { DelegationStore } from './delegation-store.js';
import type { OracleAuth } from './oracle-auth.js';
import type { Metrics } from '../../metrics.js';
import type { RateLimits } from '../auth/rate-limits.js';

/** Messages read back for an agent's history at most (the character budget cuts them further). */
const HISTORY_MESSAGES = 200;

/** The longest an invocation may live ahead of now (wire reference: 900 s). */
const MAX_INVOCATION_TTL_SECONDS = 900;

/**
 * The UCAN check of every protected oracle route and socket (none without ORACLE_DID). It asks
 * `delegations` about revocations: the store that revokes them, so that this process refuses a
 * delegation from the moment it revoked it.
 */
export function createOracleAuth(
  config: Config,
  redis: RedisClient,
  delegations: DelegationStore,
  /** Milliseconds now: when tokens expire, and how long a DID document is kept. */
  now: () => number = Date.now,
): UcanAuthenticator | undefined {
  if (!config.ORACLE_DID) return undefined;
  return createUcanAuthenticator({
    oracleDid: config.ORACLE_DID,
    now,
    isRevoked: (cid) => delegations.isRevoked(cid),
    maxInvocationTtlSeconds: MAX_INVOCATION_TTL_SECONDS,
    seenNonce: redisNonceGuard(redis, config.REDIS_PREFIX),
    resolveDid: ixoDidResolver(
      config.DID_IXO_RESOLVER_URL ?? `${config.NETWORK_API_URL.replace(/\/?$/, '/')}ixo/iid/v1beta1/{did}`,
      fetch,
      now,
    ),
  });
}

/** What a gateway's oracle is built from. */
export interface OracleDeps {
  config: Config;
  sql: Sql;
  redis: RedisClient;
  keys: Keys;
  client: Asker;
  clock: () => Date;
  log: Logger;
  plugins?: readonly OraclePlugin[];
  /** Request limits (per DID, failed authentications per address), shared with /v1. */
  limits: RateLimits;
  /** The process's metrics (the socket count is read from socket.io at each scrape). */
  metrics?: Metrics;
}

/** Spec 001's routes: the landing, sessions, delegation, messages, and plugins' routes. */
export function oracleRoutes(
  d: OracleDeps & { hub: ChatEventHub; auth: OracleAuth | undefined; delegations: DelegationStore },
): RouteSpec[] {
  const { auth, config } = d;
  const oracle = {
    did: config.ORACLE_DID ?? '',
    name: config.ORACLE_NAME,
    ...(config.ORACLE_ENTITY_DID ? { entityDid: config.ORACLE_ENTITY_DID } : {}),
  };
  const plugins = [
    ...(config.ORACLE_CREDITS_URL
      ? [creditsPlugin(httpSubscriptions(config.ORACLE_CREDITS_URL), d.log.child({ plugin: 'credits' }))]
      : []),
    ...(d.plugins ?? []),
  ];
  const tools = [
    ...oracleTools({ sql: d.sql, vouchers: new PgVoucherReads(d.sql), clock: d.clock }),
    ...plugins.flatMap((p) => p.tools ?? []),
  ];
  const models = modelCatalog(config);
  const routes = [
    landingRoute(config.ORACLE_NAME),
    modelsRoute(models),
    ...sessionRoutes(auth, { client: d.client, reads: new ChatReads(d.sql), oracle }),
    ...delegationRoutes(auth, { store: d.delegations, oracleDid: oracle.did, clock: d.clock }),
    ...messageRoutes(auth, {
      sql: d.sql,
      redis: d.redis,
      keys: d.keys,
      client: d.client,
      hub: d.hub,
      log: d.log.child({ route: 'oracle' }),
      agent: agentFor(config, tools),
      models,
      history: async (sessionId) => {
        const { entries, total } = await chatHistory(d.sql, sessionId, HISTORY_MESSAGES);
        return historyWithin(entries, config.ORACLE_HISTORY_CHARS, total);
      },
      clientCallTimeoutMs: config.ORACLE_CLIENT_CALL_SECONDS * 1000,
      heartbeatMs: config.ORACLE_SSE_HEARTBEAT_SECONDS * 1000,
      beforeMessage: async (who) => {
        for (const p of plugins) await p.beforeMessage?.(who);
      },
    }),
    ...plugins.flatMap((p) => pluginRoutes(p, auth)),
  ];
  // Documented as they are checked: a UCAN, not an API key (public ones need neither).
  return routes.map((r) => (r.doc.public ? r : { ...r, doc: { ...r.doc, auth: 'ucan' as const } }));
}
