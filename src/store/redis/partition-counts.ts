import type { RedisClient } from './redis.js';
import { StartupError } from '../../errors/index.js';
import type { Keys } from './keys.js';

/**
 * Every process of a deployment must split each actor type into the same number of partitions:
 * a gateway that computed another partition for a key would post to a mailbox no worker reads.
 * The first process records the counts in Redis; any later process with other counts refuses to
 * start, naming the type and both numbers.
 */
export async function assertPartitionCounts(
  redis: RedisClient,
  keys: Keys,
  types: ReadonlyArray<{ type: string; partitions: number }>,
): Promise<void> {
  const field = (type: string): string => `partitions:${type}`;
  await Promise.all(types.map(({ type, partitions }) => redis.hsetnx(keys.meta, field(type), partitions)));
  const recorded = await redis.hmget(keys.meta, ...types.map(({ type }) => field(type)));
  types.forEach(({ type, partitions }, i) => {
    const theirs = Number(recorded[i]);
    if (theirs !== partitions) {
      throw new StartupError(
        `ACTOR_PARTITIONS mismatch: this process splits "${type}" into ${partitions} partitions but the deployment uses ${theirs} (recorded in ${keys.meta}); start every process with the same ACTOR_PARTITIONS`,
      );
    }
  });
}
