import { z } from 'zod';
import type { RedisClient } from '../../../store/redis/redis.js';
import { ledgerStatusSchema } from '../../../ledger/ledger-reads.js';
import { publicReason } from '../../../ledger/public-reason.js';
import type { Logger } from '../../../log.js';
import type { Sql } from '../../../store/db.js';
import type { OutageSignal } from '../../../actors/runtime/ports.js';
import { withTimeout } from '../../../common/with-timeout.js';
import { json } from '../reply.js';
import type { RouteSpec } from '../router.js';

const CHECK_TIMEOUT_MS = 1_500;

function checked<T>(p: Promise<T>, what: string): Promise<T> {
  return withTimeout(p, CHECK_TIMEOUT_MS, () => new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`));
}

/**
 * `ok`, or `unreachable: <cause>` with only the error's code (ECONNREFUSED, a timeout…): the
 * route is public, and a driver's message names hosts and addresses. The whole message goes to
 * the log.
 */
async function check(run: () => Promise<unknown>, what: string, log: Logger | undefined): Promise<string> {
  try {
    await checked(run(), what);
    return 'ok';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log?.warn({ part: what, err: message }, 'health check failed');
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return `unreachable: ${code}`;
    return message.includes('did not answer') ? `unreachable: no answer within ${CHECK_TIMEOUT_MS} ms` : 'unreachable';
  }
}

/** Down by the watch's word (no wait on a silent network), or a ping of its own. */
function postgresCheck(d: HealthDeps): Promise<string> {
  const down = d.database?.current();
  if (down !== undefined) return Promise.resolve(`unreachable: ${down}`);
  return check(() => d.sql`select 1`, 'postgres', d.log);
}

/** The primary's position while PostgreSQL takes writes (0: the server matched no listed host). */
function primaryOf(d: HealthDeps, postgres: string): { postgresPrimary?: number } {
  const position = postgres === 'ok' ? d.primary?.() : undefined;
  return position ? { postgresPrimary: position } : {};
}

/** `ok`, or `unreachable: <cause>` (see check). */
const checkResult = z.string();

/**
 * The body of both answers. Its details are the one startHearth reports (hearth.ts): the
 * ledger's state with its backend, or the error that kept it from being read.
 */
export const healthBody = z.strictObject({
  status: z.enum(['ok', 'error']),
  timestamp: z.iso.datetime(),
  checks: z.strictObject({ redis: checkResult, postgres: checkResult }),
  /**
   * With several hosts in DATABASE_URL (pg_auto_failover): the position, from 1, of the one that
   * is the primary now; absent while none takes writes. A position, not a name: the route is public.
   */
  postgresPrimary: z.number().int().min(1).optional(),
  ledger: z
    .union([
      ledgerStatusSchema.extend({ backend: z.enum(['journal', 'cosmos']) }),
      z.strictObject({ error: z.string() }),
    ])
    .optional(),
});

export interface HealthDeps {
  redis: RedisClient;
  sql: Sql;
  /** PostgreSQL's watch: while it says down, the check answers at once with its cause. */
  database?: OutageSignal;
  /** The position of the primary in DATABASE_URL's host list (several hosts only). */
  primary?: () => number | undefined;
  /** Where a failing check's whole error goes (the body shows its code only). */
  log?: Logger;
  /**
   * Parts reported in the body without deciding the status (the ledger: a backlog waiting for
   * a chain must not take a gateway out of its load balancer). A failing one shows its error.
   */
  details?: Record<string, () => Promise<unknown>>;
}

/**
 * `GET /health`: really pings Redis and Postgres. 200 `{status:"ok", timestamp, checks}` when all
 * answer, 503 `{status:"error", …}` naming the failing part otherwise. Public: it reads no auth.
 */
export function healthRoute(d: HealthDeps): RouteSpec {
  return {
    method: 'GET',
    path: '/health',
    // Reports PostgreSQL's state itself, down or not.
    usesDatabase: false,
    doc: {
      operationId: 'getHealth',
      summary: 'Pings Redis and PostgreSQL; 503 names the failing part',
      tag: 'operations',
      public: true,
      responses: { 200: 'Redis and PostgreSQL answer', 503: '`status: "error"`: a check names the failing part' },
      responseBody: healthBody,
      responseBodies: { 503: healthBody },
    },
    async handler() {
      const [redis, postgres, ...details] = await Promise.all([
        check(() => d.redis.ping(), 'redis', d.log),
        postgresCheck(d),
        ...Object.values(d.details ?? {}).map((f) =>
          // The details read PostgreSQL too: while it is down they would only wait to fail.
          d.database?.current() !== undefined
            ? { error: 'PostgreSQL cannot be reached' }
            : checked(f(), 'detail').catch((e: unknown) => ({
                error: publicReason(e instanceof Error ? e.message : String(e)),
              })),
        ),
      ]);
      const ok = redis === 'ok' && postgres === 'ok';
      return json(ok ? 200 : 503, {
        status: ok ? 'ok' : 'error',
        timestamp: new Date().toISOString(),
        checks: { redis, postgres },
        ...primaryOf(d, postgres),
        ...Object.fromEntries(Object.keys(d.details ?? {}).map((name, i) => [name, details[i]])),
      });
    },
  };
}
