import type { TemplatedApp } from 'uWebSockets.js';
import { createRedis, isCluster } from '../../store/redis/redis.js';
import { ChatEventHub } from './agent/chat-events.js';
import type { RouteSpec } from '../http/router.js';
import { attachSocketGateway } from './socket/socket-gateway.js';
import { DelegationStore } from './delegation-store.js';
import { createOracleAuth, oracleRoutes, type OracleDeps } from './index.js';

/**
 * A gateway's oracle: its UCAN check, the event hub (one blocking Redis connection for every SSE
 * stream and socket room of the process; one per chat shard on a cluster), the HTTP routes, and socket.io on the same app.
 */
export function startOracleGateway(d: OracleDeps): {
  routes: RouteSpec[];
  attach(app: TemplatedApp): { close(): Promise<void> };
  close(): Promise<void>;
} {
  const log = d.log.child({ role: 'gateway' });
  const hub = new ChatEventHub(
    (name) => createRedis(d.config.REDIS_URL, name, { blocking: true, log }),
    d.keys,
    log,
    isCluster(d.redis),
  );
  const now = () => d.clock().getTime();
  const delegations = new DelegationStore(d.sql, d.config.PIN_ENCRYPTION_KEY, now);
  const ucan = createOracleAuth(d.config, d.redis, delegations, now);
  const auth = ucan ? { ucan, limits: d.limits } : undefined;
  return {
    routes: oracleRoutes({ ...d, hub, auth, delegations }),
    attach: (app) => {
      const sockets = attachSocketGateway({
        app,
        auth: ucan,
        client: d.client,
        hub,
        redis: d.redis,
        keys: d.keys,
        log,
        corsOrigin: d.config.CORS_ORIGIN,
      });
      if (d.metrics) d.metrics.live.sockets = () => sockets.io.engine.clientsCount;
      return sockets;
    },
    close: () => hub.close(),
  };
}
