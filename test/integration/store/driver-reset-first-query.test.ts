import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../../../src/common/with-timeout.js';
import { createSql } from '../../../src/store/db.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../support/tcp-proxy.js';

/**
 * The driver with several hosts in its URL (as on pg_auto_failover): a connection's first
 * statement, cut by a TCP reset (its server shut down mid-statement, as in a switchover), must
 * fail, not wait for ever. postgres.js 3.4 ignored a socket error on a connection still counted
 * as connecting when another host was listed (so as to try that host), even once its first
 * statement was running: the statement's promise never settled. Found in the failover test: a
 * commit lane's first statement after a reconnection hung, and with it every account and
 * conversion batch of its group, every conversion saga and the process's shutdown
 * (scripts/patch-postgres.mjs, the socket-error guard).
 */
describe('postgres.js: the first statement of a connection cut by a reset, with several hosts', () => {
  let env: Isolated;
  let proxy: TcpProxy;

  beforeAll(async () => {
    env = await isolated();
    const target = viaProxy(env.databaseUrl);
    proxy = await startProxy(target.host, target.port);
  });

  afterAll(async () => {
    await proxy?.close();
    await env?.cleanup();
  });

  it('fails the statement with the connection error', async () => {
    const live = new URL(env.databaseUrl);
    // Both hosts are the proxy: what matters is that the driver has another host to try.
    const url = `postgres://${live.username}@127.0.0.1:${proxy.port},127.0.0.1:${proxy.port}${live.pathname}`;
    const sql = createSql({ url, schema: env.schema, max: 1 });
    try {
      const first = sql`SELECT pg_sleep(3) AS slept`;
      const outcome = withTimeout(
        first.then(
          () => 'answered',
          (err: unknown) => `failed: ${String(err)}`,
        ),
        10_000,
        () => new Error('the statement neither ended nor failed within 10 s'),
      );
      // The connection is up and its first statement sent once pg_sleep is running.
      for (let i = 0; i < 100; i++) {
        const [row] = await env.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(3)%'`;
        if (row!.n > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      proxy.reset();
      expect(await outcome).toMatch(/^failed: .*(ECONNRESET|CONNECTION)/);
      // And the pool goes on: the next statement reconnects and is answered.
      const [again] = await sql<{ one: number }[]>`SELECT 1 AS one`;
      expect(again?.one).toBe(1);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
