import { ClusterMailbox } from './cluster-mailbox.js';
import type { Mailbox } from '../../actors/runtime/ports.js';
import { isCluster, type RedisClient } from './redis.js';
import { RedisMailbox, type RedisMailboxDeps } from './redis-mailbox.js';

/**
 * The Redis mailbox adapter for the connection's kind: on one Redis, one blocking read over all
 * the partitions a worker owns, on `blocking()` (a connection of its own); on a cluster, reads
 * per partition (see ClusterMailbox).
 */
export function redisMailboxFor(d: RedisMailboxDeps, blocking: () => RedisClient): Mailbox {
  if (isCluster(d.redis)) return new ClusterMailbox(d, d.redis);
  const own = blocking();
  if (isCluster(own)) throw new Error('a blocking connection to a cluster for a mailbox on one Redis');
  return new RedisMailbox(d, own);
}
