/*
 * The limit of a durable mailbox path: the bare responder of redis-echo.ts, plus one PostgreSQL
 * commit per batch before its replies, as commit-before-reply asks. Each batch's keys are upserted
 * in one statement (a synchronous commit, so one WAL flush per batch); then the replies and the
 * XACK go out in one pipeline. With BENCH_COMMITS_IN_FLIGHT=2 it reads and commits the next batch
 * while the previous one's commit is still in flight (closed-loop askers have one ask each in
 * flight, so two batches never hold the same key).
 * No decoding beyond the fields it needs, no fencing, no runtime: the floor under `ask()`.
 */
import postgres from 'postgres';
import { Redis } from 'ioredis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stream = process.env.BENCH_STREAM ?? 'bench:echo';
const table = process.env.BENCH_TABLE ?? 'bench_floor';
const inFlight = Number(process.env.BENCH_COMMITS_IN_FLIGHT ?? 1);
const sql = postgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', {
  max: inFlight,
  onnotice: () => undefined,
});
const redis = new Redis(url, { enableAutoPipelining: true });
const reader = new Redis(url);
let running = true;

type Entries = Array<[string, string[]]>;

async function commitAndReply(entries: Entries): Promise<void> {
  // Fields as the bench sends them: reply, corr, key, n (f[1], f[3], f[5], f[7]). Newest per key wins.
  const rows = new Map<string, { key: string; n: number }>();
  for (const [, f] of entries) rows.set(f[5] as string, { key: f[5] as string, n: Number(f[7]) });
  await sql`
    INSERT INTO ${sql(table)} (key, state, updated_at)
    SELECT x.key, jsonb_build_object('n', x.n), now() FROM jsonb_to_recordset(${JSON.stringify([...rows.values()])}::text::jsonb) AS x(key text, n bigint)
    ON CONFLICT (key) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`;
  const p = redis.pipeline();
  for (const [, f] of entries) p.xadd(f[1] as string, 'MAXLEN', '~', 10_000, '*', 'corr', f[3] as string);
  p.xack(stream, 'g', ...entries.map(([id]) => id));
  await p.exec();
}

async function main(): Promise<void> {
  await sql`DROP TABLE IF EXISTS ${sql(table)}`;
  await sql`CREATE TABLE ${sql(table)} (key text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL)`;
  await redis.xgroup('CREATE', stream, 'g', '$', 'MKSTREAM').catch(() => undefined);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const pending: Array<Promise<void>> = [];
  while (running) {
    const res = (await reader
      .xreadgroup('GROUP', 'g', 'c', 'COUNT', 256, 'BLOCK', 500, 'STREAMS', stream, '>')
      .catch(() => null)) as Array<[string, Entries]> | null;
    const entries = res?.[0]?.[1] ?? [];
    if (entries.length === 0) continue;
    pending.push(commitAndReply(entries));
    while (pending.length >= inFlight) await pending.shift();
  }
}

process.on('SIGTERM', () => {
  running = false;
  void sql`DROP TABLE IF EXISTS ${sql(table)}`
    .catch(() => undefined)
    .finally(() => {
      reader.disconnect();
      redis.disconnect();
      process.exit(0);
    });
});
void main();
