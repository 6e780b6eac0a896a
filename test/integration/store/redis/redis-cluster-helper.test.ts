import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';

/** The helper the cluster suites stand on: a real cluster of 3 masters and 3 replicas. */
describe('a Redis Cluster started on loopback', () => {
  let cluster: RedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('has 3 masters with a replica each, covers every slot, and serves keys on any node', async () => {
    const nodes = await cluster.cli(cluster.nodes[0]!.port, 'CLUSTER', 'NODES');
    const roles = nodes
      .trim()
      .split('\n')
      .map((l) => (l.split(' ')[2]!.includes('master') ? 'master' : 'replica'));
    expect(roles.filter((r) => r === 'master').length).toBe(3);
    expect(roles.filter((r) => r === 'replica').length).toBe(3);
    expect(await cluster.cli(cluster.nodes[0]!.port, 'CLUSTER', 'INFO')).toContain('cluster_slots_assigned:16384');
    const client = new Cluster(
      cluster.seeds.split(',').map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })),
    );
    try {
      for (let i = 0; i < 20; i++) await client.set(`probe:${i}`, String(i));
      expect(await client.get('probe:7')).toBe('7');
    } finally {
      client.disconnect();
    }
  });

  it('stops only what it started, by PID', async () => {
    const pids = cluster.nodes.map((n) => n.child.pid);
    expect(pids.every((p) => typeof p === 'number')).toBe(true);
    await cluster.stop();
    for (const n of cluster.nodes) expect(n.child.exitCode !== null || n.child.signalCode !== null).toBe(true);
    // The machine's own Redis is untouched.
    const { Redis } = await import('ioredis');
    const own = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      expect(await own.ping()).toBe('PONG');
    } finally {
      own.disconnect();
    }
  });
});
