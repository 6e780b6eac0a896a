import type { Keys } from '../../store/redis/keys.js';
import type { RedisClient } from '../../store/redis/redis.js';
import type { Sql } from '../../store/db.js';

/** One partition of an actor type as an operator sees it. */
interface PartitionRow {
  partition: number;
  /** The worker holding its lease now, or null (none: a worker takes it within a lease). */
  owner: string | null;
  /** Milliseconds left on that lease. */
  leaseMs: number | null;
  /** The fencing epoch of its last owner (PostgreSQL), 0 if never owned. */
  epoch: number;
  /** Entries in the mailbox stream (acknowledged ones are trimmed in the background). */
  mailbox: number;
  /** Entries not yet delivered to the owner. */
  lag: number;
  /** Delivered, not yet acknowledged. */
  pending: number;
  /** How long the oldest pending entry has waited since its last delivery, in ms. */
  oldestPendingMs: number | null;
  deadLetters: number;
}

export interface ActorTable {
  /** Redis's clock, ISO. */
  at: string;
  types: Array<{ type: string; partitions: PartitionRow[] }>;
  /** Live workers, newest heartbeat first. */
  workers: Array<{ id: string; heartbeatAgeMs: number }>;
}

function fields(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(String(flat[i]), flat[i + 1]);
  return m;
}

/** A missing stream or group answers an error: nothing there yet. */
const orNothing = <T>(p: Promise<T>): Promise<T | undefined> => p.catch(() => undefined);

/**
 * The console's Actors page: every type's partitions with owner, epoch, mailbox length, lag,
 * pending, oldest pending age and dead letters, and the workers with their heartbeats. Read
 * fresh from Redis (each command to its partition's slot, auto-pipelined) and PostgreSQL
 * (`partition_fences`) on each request.
 */
export async function readActorTable(
  redis: RedisClient,
  sql: Sql,
  keys: Keys,
  types: ReadonlyArray<{ type: string; partitions: number }>,
): Promise<ActorTable> {
  const [time, workerScores, fences] = await Promise.all([
    redis.time(),
    redis.zrange(keys.workers, 0, -1, 'WITHSCORES'),
    sql<Array<{ type: string; partition: number; epoch: string }>>`SELECT type, partition, epoch FROM partition_fences`,
  ]);
  const nowMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  const epochs = new Map(fences.map((f) => [`${f.type}/${f.partition}`, Number(f.epoch)]));
  const rows = await Promise.all(
    types.map(async ({ type, partitions }) => ({
      type,
      partitions: await Promise.all(
        Array.from({ length: partitions }, (_, p) => partitionRow(redis, keys, type, p, epochs)),
      ),
    })),
  );
  const workers: ActorTable['workers'] = [];
  for (let i = 0; i + 1 < workerScores.length; i += 2) {
    workers.push({ id: workerScores[i]!, heartbeatAgeMs: Math.max(0, nowMs - Number(workerScores[i + 1])) });
  }
  workers.sort((a, b) => a.heartbeatAgeMs - b.heartbeatAgeMs);
  return { at: new Date(nowMs).toISOString(), types: rows, workers };
}

async function partitionRow(
  redis: RedisClient,
  keys: Keys,
  type: string,
  partition: number,
  epochs: ReadonlyMap<string, number>,
): Promise<PartitionRow> {
  const stream = keys.mailbox(type, partition);
  const lease = keys.lease(type, partition);
  const [owner, leaseMs, mailbox, groups, oldest, deadLetters] = await Promise.all([
    redis.get(lease),
    redis.pttl(lease),
    redis.xlen(stream),
    orNothing(redis.xinfo('GROUPS', stream) as Promise<unknown[][]>),
    orNothing(redis.xpending(stream, keys.group, '-', '+', 1) as Promise<unknown[][]>),
    redis.xlen(keys.deadLetter(type, partition)),
  ]);
  const group = (groups ?? []).map(fields).find((g) => g.get('name') === keys.group);
  return {
    partition,
    owner,
    leaseMs: owner !== null && leaseMs >= 0 ? leaseMs : null,
    epoch: epochs.get(`${type}/${partition}`) ?? 0,
    mailbox,
    lag: Number(group?.get('lag') ?? 0),
    pending: Number(group?.get('pending') ?? 0),
    oldestPendingMs: oldest?.[0] ? Number(oldest[0][2]) : null,
    deadLetters,
  };
}
