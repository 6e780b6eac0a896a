/*
 * The limit of the mailbox path: a bare responder that XREADGROUPs a stream and XADDs each entry
 * back to the stream named in it. No decoding, no Postgres, no runtime: Redis round trips only.
 */
import { Redis } from 'ioredis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stream = process.env.BENCH_STREAM ?? 'bench:echo';
const redis = new Redis(url);
const reader = new Redis(url);
let running = true;

async function main(): Promise<void> {
  await redis.xgroup('CREATE', stream, 'g', '$', 'MKSTREAM').catch(() => undefined);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  while (running) {
    const res = (await reader
      .xreadgroup('GROUP', 'g', 'c', 'COUNT', 256, 'BLOCK', 500, 'STREAMS', stream, '>')
      .catch(() => null)) as Array<[string, Array<[string, string[]]>]> | null;
    const entries = res?.[0]?.[1] ?? [];
    if (entries.length === 0) continue;
    const p = redis.pipeline();
    for (const [, f] of entries) p.xadd(f[1] as string, 'MAXLEN', '~', 10_000, '*', 'corr', f[3] as string);
    p.xack(stream, 'g', ...entries.map(([id]) => id));
    await p.exec();
  }
}

process.on('SIGTERM', () => {
  running = false;
  reader.disconnect();
  redis.disconnect();
  process.exit(0);
});
void main();
