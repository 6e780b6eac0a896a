import type { Redis } from 'ioredis';
import type { Sql } from '../../../store/db.js';
import { json } from '../reply.js';
import type { RouteSpec } from '../router.js';

const CHECK_TIMEOUT_MS = 1_500;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(
        () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      ).unref(),
    ),
  ]);
}

async function check(run: () => Promise<unknown>, what: string): Promise<string> {
  try {
    await withTimeout(run(), what);
    return 'ok';
  } catch (err) {
    return `unreachable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

export interface HealthDeps {
  redis: Redis;
  sql: Sql;
  /** Extra parts to report (the ledger, for instance); each returns 'ok' or a reason. */
  extra?: Record<string, () => Promise<string>>;
}

/**
 * `GET /health`: really pings Redis and Postgres. 200 `{status:"ok", timestamp, checks}` when all
 * answer, 503 `{status:"error", …}` naming the failing part otherwise. Public: it reads no auth.
 */
export function healthRoute(d: HealthDeps): RouteSpec {
  return {
    method: 'GET',
    path: '/health',
    doc: {
      summary: 'Pings Redis and PostgreSQL; 503 names the failing part',
      tag: 'operations',
      public: true,
      responses: { 200: '{status, timestamp, checks}', 503: '{status:"error", timestamp, checks}' },
    },
    async handler() {
      const names = ['redis', 'postgres', ...Object.keys(d.extra ?? {})];
      const results = await Promise.all([
        check(() => d.redis.ping(), 'redis'),
        check(() => d.sql`select 1`, 'postgres'),
        ...Object.values(d.extra ?? {}).map((f) => f().catch((e: unknown) => `error: ${String(e)}`)),
      ]);
      const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
      const ok = results.every((r) => r === 'ok');
      return json(ok ? 200 : 503, { status: ok ? 'ok' : 'error', timestamp: new Date().toISOString(), checks });
    },
  };
}
