import type { TemplatedApp } from 'uWebSockets.js';
import { connectRedis, createRedis } from '../../actors/runtime/redis.js';
import { ChatEventHub } from './agent/chat-events.js';
import type { RouteSpec } from '../http/router.js';
import { attachSocketGateway } from '../socket/socket-gateway.js';
import { DelegationStore } from './delegation-store.js';
import { createOracleAuth, oracleRoutes, type OracleDeps } from './index.js';

/**
 * A gateway's oracle: its UCAN check, the event hub (one blocking Redis connection for every SSE
 * stream and socket room of the process), the HTTP routes, and socket.io on the same app.
 */
export async function startOracleGateway(d: OracleDeps): Promise<{
  routes: RouteSpec[];
  attach(app: TemplatedApp): { close(): Promise<void> };
  close(): Promise<void>;
}> {
  const log = d.log.child({ role: 'gateway' });
  const reader = await connectRedis(
    createRedis(d.config.REDIS_URL, 'chat-events', { blocking: true, log }),
    d.config.REDIS_URL,
  );
  const hub = new ChatEventHub(reader, d.keys, log);
  const now = () => d.clock().getTime();
  const delegations = new DelegationStore(d.sql, d.config.PIN_ENCRYPTION_KEY, now);
  const ucan = createOracleAuth(d.config, d.redis, delegations, now);
  const auth = ucan ? { ucan, limits: d.limits } : undefined;
  return {
    routes: oracleRoutes({ ...d, hub, auth, delegations }),
    attach: (app) =>
      attachSocketGateway({
        app,
        auth: ucan,
        client: d.client,
        hub,
        redis: d.redis,
        keys: d.keys,
        log,
        corsOrigin: d.config.CORS_ORIGIN,
      }),
    close: () => hub.close(),
  };
}
