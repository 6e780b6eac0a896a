import { z } from 'zod';
import type { Keys } from '../../store/redis/keys.js';
import type { RedisClient } from '../../store/redis/redis.js';
import type { Metrics } from '../../metrics.js';
import type { Sql } from '../../store/db.js';
import { guarded, type Guards } from '../auth/guard.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import type { OperatorActions } from '../operators/service.js';
import { LiveSessions } from '../ussd/service.js';
import { readActorTable } from './actor-table.js';
import type { OverviewHistory } from './overview-history.js';
import { tailRoute } from './tail-route.js';
import { readUssdView } from './ussd-view.js';
import { verifyRoute } from './verify-route.js';

export interface ConsoleDeps {
  sql: Sql;
  redis: RedisClient;
  redisUrl: string;
  keys: Keys;
  metrics: Metrics;
  types: ReadonlyArray<{ type: string; partitions: number }>;
  overview: OverviewHistory;
  actions: OperatorActions;
  ussdIdleMs: number;
  clock: () => Date;
}

const perFamily = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

const overviewBody = z.object({
  intervalMs: z.number().int(),
  samples: z.array(
    z.object({
      at: z.string(),
      requestsPerSecond: perFamily(z.number()),
      p99Ms: perFamily(z.number().nullable()),
      asksPerSecond: z.number(),
      askTimeoutsPerSecond: z.number(),
      ussdLiveSessions: z.number().nullable(),
      sseStreams: z.number(),
      sockets: z.number(),
      ledgerBacklog: z.number().nullable(),
    }),
  ),
  /** The PostgreSQL primary now (`host:port` as the server gives it, and its place in DATABASE_URL), or why none. */
  postgres: z.object({
    primary: z.string().nullable(),
    position: z.number().int().nullable(),
    down: z.string().nullable(),
  }),
});

const actorsBody = z.object({
  at: z.string(),
  types: z.array(
    z.object({
      type: z.string(),
      partitions: z.array(
        z.object({
          partition: z.number().int(),
          owner: z.string().nullable(),
          leaseMs: z.number().nullable(),
          epoch: z.number().int(),
          mailbox: z.number().int(),
          lag: z.number().int(),
          pending: z.number().int(),
          oldestPendingMs: z.number().nullable(),
          deadLetters: z.number().int(),
        }),
      ),
    }),
  ),
  workers: z.array(z.object({ id: z.string(), heartbeatAgeMs: z.number() })),
});

const ussdBody = z.object({
  live: z.object({
    count: z.number().int(),
    sessions: z.array(
      z.object({
        sessionId: z.string(),
        phone: z.string(),
        serviceCode: z.string(),
        state: z.string(),
        startedAt: z.string(),
        lastActivityAt: z.string(),
      }),
    ),
  }),
  outcomes: z.array(
    z.object({ status: z.string(), serviceCode: z.string(), network: z.string(), sessions: z.number() }),
  ),
});

/**
 * The data behind the operators' console (`/console`), admin keys only, under `/v1/operator/`:
 * the overview's last 15 minutes, the actors table, the USSD view, a mailbox tail and a ledger
 * verify (both server-sent events). Dead letters, keys and the ledger's blocks are the API's own
 * routes; the console calls them as any client would.
 */
export function consoleDataRoutes(g: Guards, d: ConsoleDeps): RouteSpec[] {
  const live = new LiveSessions(d.redis, d.keys, d.ussdIdleMs);
  return [
    {
      method: 'GET',
      path: '/v1/operator/overview',
      doc: {
        summary: "This gateway's readings every 5 s over the last 15 minutes (admin)",
        operationId: 'getOperatorOverview',
        tag: 'operators',
        responses: { 200: 'Readings, oldest first' },
        responseBody: overviewBody,
      },
      handler: guarded(g, ['admin'], () => Promise.resolve(json(200, d.overview.history()))),
    },
    {
      method: 'GET',
      path: '/v1/operator/actors',
      doc: {
        summary:
          "Every actor type's partitions (owner, epoch, mailbox, lag, pending, dead letters) and the workers (admin)",
        operationId: 'getOperatorActors',
        tag: 'operators',
        responses: { 200: 'The table, read fresh' },
        responseBody: actorsBody,
      },
      handler: guarded(g, ['admin'], async () => json(200, await readActorTable(d.redis, d.sql, d.keys, d.types))),
    },
    {
      method: 'GET',
      path: '/v1/operator/ussd',
      doc: {
        summary: 'Live USSD sessions (phone numbers masked) and session outcomes (admin)',
        operationId: 'getOperatorUssd',
        tag: 'operators',
        responses: { 200: 'Live sessions, newest first (200 at most), and outcomes counted by this gateway' },
        responseBody: ussdBody,
      },
      handler: guarded(g, ['admin'], async () => json(200, await readUssdView(live, d.metrics, d.clock()))),
    },
    tailRoute(g, d),
    verifyRoute(g, d),
  ];
}
