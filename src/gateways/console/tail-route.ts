import { z } from 'zod';
import { type Keys } from '../../store/redis/keys.js';
import { partitionOf } from '../../actors/runtime/partitioning.js';
import { MailboxTail } from '../../store/redis/mailbox-tail.js';
import { connectRedis, createRedis, isCluster, type RedisClient } from '../../store/redis/redis.js';
import { AppError } from '../../errors/index.js';
import { guarded, type Guards } from '../auth/guard.js';
import { parseWith, queryObject } from '../http/context.js';
import { SSE_HEADERS, sseFrame } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { redactedBody } from '../operators/service.js';

/** Tails one gateway holds at once: each holds a Redis connection of its own. */
const MAX_TAILS = 8;
const BLOCK_MS = 1_000;

const tailQuery = z
  .object({
    type: z.string().trim().min(1).max(64),
    partition: z.coerce.number().int().min(0).max(4_095).optional(),
    key: z.string().min(1).max(256).optional(),
  })
  .strict();

export interface TailDeps {
  redis: RedisClient;
  redisUrl: string;
  keys: Keys;
  types: ReadonlyArray<{ type: string; partitions: number }>;
}

/**
 * `GET /v1/operator/tail?type=&partition=&key=` (admin): a server-sent event stream of a type's
 * mailbox entries as they arrive (the `redis-cli XREAD BLOCK` habit, in the console), `entry`
 * events, with a heartbeat comment each second. A key alone picks its partition; on a Redis
 * Cluster a partition or a key is needed (each partition is a slot of its own).
 */
export function tailRoute(g: Guards, d: TailDeps): RouteSpec {
  let open = 0;
  return {
    method: 'GET',
    path: '/v1/operator/tail',
    deadline: 'none',
    doc: {
      summary: "Follow a type's mailbox entries as they arrive (admin; server-sent events)",
      operationId: 'tailMailbox',
      tag: 'operators',
      query: tailQuery,
      responseType: 'text/event-stream',
      responses: {
        200: '`event: ready` {type, partitions}, then `event: entry` frames, data `{at, type, partition, id, key, kind, body}` (secret fields redacted)',
      },
      // VALIDATION_FAILED: an unknown type or partition, or neither on a cluster; OVERLOADED: too many tails.
      errors: ['VALIDATION_FAILED', 'OVERLOADED'],
    },
    handler: guarded(g, ['admin'], (ctx) => {
      const q = parseWith(tailQuery, queryObject(ctx.query), 'query');
      const partitions = d.types.find((t) => t.type === q.type)?.partitions;
      const invalid = (path: string, message: string) =>
        new AppError('VALIDATION_FAILED', 'invalid request', [{ path, message }]);
      if (partitions === undefined) throw invalid('type', `is no actor type of this deployment: ${q.type}`);
      if (q.partition !== undefined && q.partition >= partitions) {
        throw invalid('partition', `${q.type} has partitions 0-${partitions - 1}`);
      }
      const chosen = q.partition ?? (q.key !== undefined ? partitionOf(q.key, partitions) : undefined);
      if (chosen === undefined && isCluster(d.redis)) {
        throw invalid('partition', 'on a Redis Cluster, name a partition or a key (each partition is a slot)');
      }
      if (open >= MAX_TAILS) throw new AppError('OVERLOADED', `${MAX_TAILS} tails are open on this gateway already`);
      const parts = chosen === undefined ? Array.from({ length: partitions }, (_, p) => p) : [chosen];
      open++;
      return Promise.resolve({
        status: 200,
        headers: SSE_HEADERS,
        stream: async (write, signal) => {
          try {
            await follow(d, q.type, parts, q.key, write, signal);
          } finally {
            open--;
          }
        },
      });
    }),
  };
}

async function follow(
  d: TailDeps,
  type: string,
  parts: readonly number[],
  key: string | undefined,
  write: (chunk: string) => boolean,
  signal: AbortSignal,
): Promise<void> {
  const conn = await connectRedis(createRedis(d.redisUrl, 'hearth-console-tail', { blocking: true }), d.redisUrl);
  // A blocked read ends with the connection when the page goes.
  const end = () => conn.disconnect();
  signal.addEventListener('abort', end, { once: true });
  try {
    const tail = new MailboxTail(
      conn,
      parts.map((p) => d.keys.mailbox(type, p)),
      parts,
    );
    write(sseFrame('ready', { type, partitions: parts }));
    while (!signal.aborted) {
      for (const { partition, at, entry: e } of await tail.next(BLOCK_MS)) {
        if (key !== undefined && e.key !== key) continue;
        write(
          sseFrame('entry', { at, type, partition, id: e.id, key: e.key, kind: e.kind, body: redactedBody(e.body) }),
        );
      }
      // A heartbeat each read: `write` says when the page has gone.
      if (!write(': heartbeat\n\n')) break;
    }
  } catch (err) {
    if (!signal.aborted) write(sseFrame('error', { message: err instanceof Error ? err.message : String(err) }));
  } finally {
    signal.removeEventListener('abort', end);
    conn.disconnect();
  }
}
