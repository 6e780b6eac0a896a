import { createKeys } from '../store/redis/keys.js';
import { partitionOf } from '../actors/runtime/partitioning.js';
import { MailboxTail } from '../store/redis/mailbox-tail.js';
import { connectRedis, createRedis, isCluster } from '../store/redis/redis.js';
import { UsageError } from './usage.js';

/**
 * `hearth tail <type> [partition] [--key K]`: follows a type's mailboxes as entries arrive (the
 * `redis-cli XREAD BLOCK` habit), straight from Redis (REDIS_URL, REDIS_PREFIX). A line per
 * entry: when, where, key, kind and body; `--json`, one JSON object per line. `--key` alone
 * follows the key's own partition (which a cluster needs: no read spans slots). Runs until
 * interrupted (or `--count` entries).
 */
export async function tail(
  env: Record<string, string | undefined>,
  o: { type: string; partition?: number; key?: string; json: boolean; count?: number },
  out: (line: string) => void,
  stop: AbortSignal,
): Promise<void> {
  const url = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const keys = createKeys(env.REDIS_PREFIX ?? 'hearth');
  const redis = await connectRedis(createRedis(url, 'hearth-cli-tail', { blocking: true }), url);
  try {
    const field = `partitions:${o.type}`;
    const partitions = Number(await redis.hget(keys.meta, field));
    if (!partitions)
      throw new UsageError(`no actor type "${o.type}" has run on this Redis (${keys.meta} has no ${field})`);
    if (o.partition !== undefined && (o.partition < 0 || o.partition >= partitions)) {
      throw new UsageError(`${o.type} has partitions 0-${partitions - 1}`);
    }
    // A key lives in one partition: follow that one alone.
    const chosen = o.partition ?? (o.key !== undefined ? partitionOf(o.key, partitions) : undefined);
    if (chosen === undefined && isCluster(redis)) {
      throw new UsageError('on a Redis Cluster, name the partition or a --key to tail (each partition is a slot)');
    }
    const parts = chosen === undefined ? Array.from({ length: partitions }, (_, p) => p) : [chosen];
    const tail = new MailboxTail(
      redis,
      parts.map((p) => keys.mailbox(o.type, p)),
      parts,
    );
    let seen = 0;
    while (!stop.aborted && (o.count === undefined || seen < o.count)) {
      for (const { partition, at, entry: e } of await tail.next(1000)) {
        if (o.key !== undefined && e.key !== o.key) continue;
        // A USSD hop's text is sealed already; the body is shown as the mailbox holds it.
        out(
          o.json
            ? JSON.stringify({ at, type: o.type, partition, id: e.id, key: e.key, kind: e.kind, body: e.body })
            : `${at}  ${o.type}/${partition}  ${e.id}  ${e.key}  ${e.kind}  ${e.body}`,
        );
        seen++;
      }
    }
  } finally {
    redis.disconnect();
  }
}
