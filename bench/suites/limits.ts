import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startChild } from '../lib/child.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';

/** Told when a level's counted time starts and ends (the probe meters CPU over it). */
type Window = { start(): void; stop(): void };

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/** Requests/s of a bare uWebSockets.js hello world (server in a child, autocannon here). */
export async function httpHelloLimit(env: BenchEnv): Promise<LevelResult> {
  const server = startChild(here('../servers/hello-uws.js'), {}, (l) => l.ready === true);
  try {
    const { port } = await server.ready;
    const result = await autocannon({
      url: `http://127.0.0.1:${String(port)}/`,
      connections: 64,
      duration: env.seconds,
    });
    return {
      concurrency: 64,
      ops: result.requests.total,
      seconds: env.seconds,
      perSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors + result.non2xx,
    };
  } finally {
    await server.stop();
  }
}

/**
 * Round trips/s of the bare mailbox path: XADD to a stream, a responder process XREADGROUPs it
 * and XADDs the reply to this process's stream, read here with a blocking XREAD. The same shape
 * as `ask()`, minus decoding, `decide`, Postgres and the runtime's bookkeeping.
 */
export function bareRedisLimit(env: BenchEnv, levels: number[], window?: Window): Promise<LevelResult[]> {
  return mailboxLimit(env, levels, '../servers/redis-echo.js', {}, window);
}

/**
 * The same round trip with one PostgreSQL commit per batch before the replies (the responder
 * upserts each batch's keys in one statement): the floor under a commit-before-reply `ask()`,
 * with none of the runtime (no fencing, no snapshots' versions, no decoding, no `decide`).
 */
export function bareDurableLimit(
  env: BenchEnv,
  levels: number[],
  commitsInFlight = 1,
  window?: Window,
): Promise<LevelResult[]> {
  return mailboxLimit(
    env,
    levels,
    '../servers/redis-pg-echo.js',
    {
      DATABASE_URL: env.databaseUrl,
      BENCH_TABLE: `${env.schema}_floor`,
      BENCH_COMMITS_IN_FLIGHT: String(commitsInFlight),
    },
    window,
  );
}

async function mailboxLimit(
  env: BenchEnv,
  levels: number[],
  server: string,
  serverEnv: Record<string, string>,
  window?: Window,
): Promise<LevelResult[]> {
  const stream = `${env.prefix}:bare`;
  const replyStream = `${env.prefix}:bare-reply`;
  const responder = startChild(
    here(server),
    { REDIS_URL: env.redisUrl, BENCH_STREAM: stream, ...serverEnv },
    (l) => l.ready === true,
  );
  const redis = new Redis(env.redisUrl);
  const reader = new Redis(env.redisUrl);
  const waiters = new Map<string, () => void>();
  let reading = true;
  try {
    await responder.ready;
    let last = (await redis.xadd(replyStream, '*', 'corr', 'start')) as string;
    const readLoop = (async () => {
      while (reading) {
        type Read = Array<[string, Array<[string, string[]]>]> | null;
        const res: Read = await reader
          .xread('COUNT', 1000, 'BLOCK', 200, 'STREAMS', replyStream, last)
          .then((r) => r)
          .catch(() => null);
        for (const [id, f] of res?.[0]?.[1] ?? []) {
          last = id;
          const done = waiters.get(f[1] as string);
          waiters.delete(f[1] as string);
          done?.();
        }
      }
    })();
    const results: LevelResult[] = [];
    for (const c of levels) {
      results.push(
        await closedLoop(
          c,
          env.seconds * 1000,
          async (w, i) => {
            const corr = randomUUID();
            const replied = new Promise<void>((resolve) => waiters.set(corr, resolve));
            // One key per asker, as the echo asks use (the durable responder upserts it).
            await redis.xadd(stream, '*', 'reply', replyStream, 'corr', corr, 'key', `asker-${c}-${w}`, 'n', String(i));
            await replied;
          },
          1_000,
          window,
        ),
      );
    }
    reading = false;
    await readLoop;
    return results;
  } finally {
    reading = false;
    await redis.del(stream, replyStream);
    redis.disconnect();
    reader.disconnect();
    await responder.stop();
  }
}
