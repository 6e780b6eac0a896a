import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../../../src/common/with-timeout.js';
import { createSql } from '../../../src/store/db.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A pool connection whose server drops it again and again under a client that asks at once
 * after each failure (a worker's round replayed, a relay's poll): every statement is answered or
 * fails, none waits for ever. postgres.js 3.4 lost a statement handed to the connection between
 * its socket's error and its close (the pool still counted it open; the close handler rejected
 * nothing after an error): the client hung in 2 runs of 3 without the guard
 * (scripts/patch-postgres.mjs, the closed-after-error guard). The likely cause of what the
 * failover test showed after a switchover: a worker stalled in its load, the anchoring stopped.
 */
describe('postgres.js: a connection dropped under a client that asks again at once', () => {
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

  it('answers or fails every statement, and serves again afterwards', async () => {
    const sql = createSql({ url: viaProxy(env.databaseUrl, proxy.port).url, schema: env.schema, max: 1 });
    let stop = false;
    const outcomes = { answered: 0, failed: 0, hung: 0 };
    try {
      const clients = Array.from({ length: 1 }, async (_, i) => {
        while (!stop) {
          try {
            await withTimeout(sql`SELECT pg_sleep(${(i % 5) / 100})`, 5_000, () => new Error('hung'));
            outcomes.answered++;
          } catch (err) {
            if (String(err).includes('hung')) return void outcomes.hung++;
            outcomes.failed++;
          }
        }
      });
      // The server drops its connections, again and again.
      for (let i = 0; i < 20; i++) {
        await sleep(200);
        proxy.cut();
        proxy.restore();
      }
      await sleep(500);
      stop = true;
      await Promise.all(clients);
      expect(outcomes.hung).toBe(0);
      expect(outcomes.failed).toBeGreaterThan(0); // the resets did cut statements
      const [row] = await sql<{ one: number }[]>`SELECT 1 AS one`;
      expect(row?.one).toBe(1);
    } finally {
      stop = true;
      await sql.end({ timeout: 1 });
    }
  }, 60_000);
});
