import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, isolated, type Isolated, onCluster } from '../support/isolated.js';
import { startClient, startRuntime } from '../support/runtime-harness.js';
import { startProxy, viaProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * Redis restarts without its data (no persistence configured): the reply stream and the
 * mailboxes' consumer groups are gone. Asks must work again once it answers, within seconds.
 */
// A proxy in front of one Redis stands for its restart; on a cluster, redis-cluster-failover.test.ts.
describe.skipIf(onCluster)('Redis back without its data', () => {
  let env: Isolated;
  let proxy: TcpProxy;

  beforeAll(async () => {
    env = await isolated();
    const target = viaProxy(env.redisUrl);
    proxy = await startProxy(target.host, target.port);
  });

  afterAll(async () => {
    await proxy.close();
    await env.cleanup();
  });

  it('makes the reply stream and the consumer groups again, and answers asks', async () => {
    const via = { ...env, redisUrl: viaProxy(env.redisUrl, proxy.port).url };
    const runtime = await startRuntime(via);
    const client = await startClient(via, { timeoutMs: 1_000 });
    try {
      expect(await client.ask('echo', 'before', { kind: 'echo', payload: 1 })).toMatchObject({ payload: 1 });
      proxy.cut();
      let cursor = '0';
      do {
        const [next, keys] = await env.redis.scan(cursor, 'MATCH', `${env.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await env.redis.del(...keys);
      } while (cursor !== '0');
      // A sleep on purpose: Redis stays down a while, as a restart would (nothing to wait for).
      await new Promise((r) => setTimeout(r, 300));
      proxy.restore();
      const started = Date.now();
      const answer = await eventually(
        () => client.ask<{ payload: number }>('echo', 'after', { kind: 'echo', payload: 2 }).catch(() => undefined),
        (r) => r?.payload === 2,
        10_000,
      );
      expect(answer).toMatchObject({ payload: 2 });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await client.close();
      await runtime.close();
    }
  });
});
