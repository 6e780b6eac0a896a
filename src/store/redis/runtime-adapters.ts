import type { Logger } from '../../log.js';
import type { Keys } from './keys.js';
import { RedisLeases } from './redis-leases.js';
import { redisMailboxFor } from './mailbox-for.js';
import type { LeaseTable, Mailbox } from '../../actors/runtime/ports.js';
import type { RedisClient } from './redis.js';

/**
 * What a worker's Runtime reads and holds on Redis: a mailbox per actor type (its own blocking
 * connection on one Redis, per-partition reads on a cluster) and the lease table.
 */
export function redisRuntimeAdapters(d: {
  redis: RedisClient;
  /** Makes a fresh connection for a type's blocking reads. */
  connect: (name: string, blocking?: boolean) => RedisClient;
  keys: Keys;
  workerId: string;
  leaseTtlMs: number;
  types: readonly string[];
  log: Logger;
}): { mailboxOf: (type: string) => Mailbox; leases: LeaseTable } {
  return {
    mailboxOf: (type) =>
      redisMailboxFor(
        { type, keys: d.keys, redis: d.redis, consumer: d.workerId, log: d.log.child({ actor: type }) },
        () => d.connect(`${d.workerId}:${type}`, true),
      ),
    leases: new RedisLeases(d.redis, d.keys, d.workerId, d.leaseTtlMs, d.types),
  };
}
