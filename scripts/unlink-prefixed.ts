import { isCluster, type RedisClient } from '../src/store/redis/redis.js';

/** Deletes every key that starts with `prefix`, on each master of a cluster (SCAN covers one node). */
export async function unlinkPrefixed(redis: RedisClient, prefix: string): Promise<void> {
  const servers = isCluster(redis) ? redis.nodes('master') : [redis];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, found] = await server.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      // One key per UNLINK: keys of several slots in one command are refused on a cluster.
      await Promise.all(found.map((k) => redis.unlink(k)));
    } while (cursor !== '0');
  }
}
