import postgres from 'postgres';
import { StartupError } from '../errors/startup-error.js';

export type Sql = postgres.Sql;

export interface DbOptions {
  url: string;
  schema: string;
  /** Pool size. Default 10. */
  max?: number;
  /** Session settings of every connection, beside hearth's own (e.g. `synchronous_commit`). */
  settings?: Record<string, string>;
}

/**
 * Seconds before a pool connection tries again after failing to connect: 25 ms doubling to
 * 200 ms, with jitter. postgres.js's own grows to 20 s (3^n / 100), and a query waiting on that
 * connection waits it out: seen here, asks still timing out 5 s after PostgreSQL came back. The
 * service decides how to wait out an outage (DatabaseWatch answers 503 meanwhile); the driver
 * only has to notice the return quickly.
 */
function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.025 * 2 ** failures, 0.2) * (0.5 + Math.random() / 2);
}

/**
 * With several hosts in the URL (`postgres://h1:5432,h2:5432/hearth`, a pg_auto_failover pair),
 * every connection must reach the primary, whichever host is listed first: hearth asks for
 * `target_session_attrs=read-write` unless the URL says otherwise. The driver then checks each
 * connection it opens (with scripts/patch-postgres.mjs: not a hot standby either) and tries the
 * next host. One host: nothing to choose between, so nothing is asked.
 */
export function sessionTarget(url: string): { target_session_attrs?: 'read-write' } {
  const hosts = /^postgres(?:ql)?:\/\/(?:[^@/?]*@)?([^/?]*)/.exec(url)?.[1] ?? '';
  const several = hosts.includes(',');
  return several && !/[?&]target_session_attrs=/.test(url) ? { target_session_attrs: 'read-write' } : {};
}

/** A pool whose connections all use hearth's schema, so tests can isolate by schema. */
export function createSql({ url, schema, max = 10, settings = {} }: DbOptions): Sql {
  return postgres(url, {
    ...sessionTarget(url),
    max,
    backoff: reconnectDelaySeconds,
    connect_timeout: 5,
    idle_timeout: 30,
    onnotice: () => undefined,
    connection: { search_path: schema, application_name: 'hearth', plan_cache_mode: 'force_generic_plan', ...settings },
  });
}

function causeOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** Checks the pool can reach Postgres; the error names the cause and the remedy (spec 002). */
export async function assertDatabaseReachable(sql: Sql): Promise<void> {
  try {
    await sql`select 1`;
  } catch (err) {
    // A server that answers but has no such database is running: say what is missing.
    if ((err as { code?: unknown }).code === '3D000') {
      const name = sql.options.database;
      throw new StartupError(
        `Database "${name}" does not exist on the PostgreSQL server of DATABASE_URL: create it (createdb ${name}, or psql -c 'CREATE DATABASE "${name}"') or correct the URL`,
      );
    }
    throw new StartupError(
      `Database connection failed (${causeOf(err)}): PostgreSQL is not running or DATABASE_URL does not match; start the database and correct the variable`,
    );
  }
}

export { causeOf };
