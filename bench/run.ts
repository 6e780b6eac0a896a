/*
 * `npm run bench`: measures on this machine and writes BENCHMARKS.md. Every figure is compared
 * with a limit measured in the same run, so the ratios hold even when the machine is busy.
 * Servers run in child processes; this process is the load generator.
 */
import { writeFileSync } from 'node:fs';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { benchEnv } from './lib/env.js';
import { fmt, type LevelResult } from './lib/measure.js';
import { bareRedisLimit, httpHelloLimit } from './suites/limits.js';
import { echoAsk, startClient, startWorker } from './suites/runtime.js';
import { httpRedemptions } from './suites/http-redemptions.js';
import { redemptions } from './suites/vouchers.js';
import { ledgerJournal, type LedgerLevel } from './suites/ledger.js';
import { ussdHops } from './suites/ussd.js';
import { sseStreams, type SseResult } from './suites/sse.js';
import { socketConnections, type SocketSide, type SocketsResult } from './suites/sockets.js';

const levels = [1, 64, 512];

function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function main(): Promise<void> {
  const env = benchEnv();
  progress(`${env.machine}; ${env.seconds} s per level`);

  // The limits and the asks are measured twice, interleaved, and each keeps its better run: on
  // this shared VM a noisy moment (CPU steal) must flatter neither the limit nor the ratio.
  const limits = async () => {
    progress('limit: uWebSockets.js hello world');
    const hello = await httpHelloLimit(env);
    progress(`  ${fmt.rate(hello.perSecond)} req/s`);
    progress('limit: bare Redis XADD → XREADGROUP → XADD round trip');
    const bare = await bareRedisLimit(env, levels);
    for (const r of bare) progress(`  ${r.concurrency} concurrent: ${fmt.rate(r.perSecond)}/s`);
    return { hello, bare };
  };
  const first = await limits();

  progress('runtime: ask() through the echo actor, commit-before-reply');
  const worker = await startWorker(env);
  const session = await startClient(env);
  const client = session.client;
  let asks: LevelResult[];
  let hello: LevelResult;
  let bare: LevelResult[];
  let vouchers: { spread: LevelResult; hot: LevelResult };
  let http: { spread: LevelResult; hot: LevelResult };
  let ussd: LevelResult[];
  let sse: SseResult;
  let sockets: SocketsResult;
  try {
    const echo = async () => {
      const r = await echoAsk(env, client, levels);
      for (const a of r)
        progress(`  ${a.concurrency} concurrent: ${fmt.rate(a.perSecond)}/s, p99 ${fmt.ms(a.p99Ms)} ms`);
      return r;
    };
    const asks1 = await echo();
    const second = await limits();
    progress('runtime: ask() again');
    asks = better(asks1, await echo());
    hello = better([first.hello], [second.hello])[0]!;
    bare = better(first.bare, second.bare);
    progress('vouchers: redemptions through the voucher actor, 64 concurrent (seeding 10,001 vouchers first)');
    vouchers = await redemptions(env, client, 64);
    progress(
      `  10,000 vouchers: ${fmt.rate(vouchers.spread.perSecond)}/s; one hot: ${fmt.rate(vouchers.hot.perSecond)}/s`,
    );
    progress('vouchers: signed HTTP redemptions through a gateway process, 64 concurrent (seeding 10,001 over HTTP)');
    http = await httpRedemptions(env, 64, 10_000);
    progress(`  10,000 vouchers: ${fmt.rate(http.spread.perSecond)}/s; one hot: ${fmt.rate(http.hot.perSecond)}/s`);
    progress('ussd: 5-hop sessions through a gateway process, 50 and 500 concurrent sessions');
    ussd = await ussdHops(env, [50, 500]);
    for (const u of ussd)
      progress(`  ${u.concurrency} sessions: ${fmt.rate(u.perSecond)} hops/s, p99 ${fmt.ms(u.p99Ms)} ms`);
    progress('oracle: 1,000 SSE streams held at once through a gateway process');
    sse = await sseStreams(env, 1_000);
    progress(
      `  ${sse.opened}/${sse.streams} open, ${sse.kbPerStream.toFixed(1)} KiB per stream, first token p50 ${fmt.ms(sse.ttftP50Ms)} ms`,
    );
    progress(
      'sockets: 10,000 socket.io connections on a gateway process, fan-out to a room of 1,000 (then bare socket.io)',
    );
    sockets = await socketConnections(env, 10_000, 1_000, 200);
    for (const [name, s] of [
      ['hearth', sockets.hearth],
      ['bare', sockets.bare],
    ] as const)
      progress(
        `  ${name}: ${s.connected}/${s.asked} in ${s.connectSeconds.toFixed(1)} s, ${s.kbPerConnection.toFixed(1)} KiB each, ${fmt.rate(s.deliveriesPerSecond)} deliveries/s`,
      );
  } finally {
    await session.close();
    await worker.stop();
    await cleanup(env.redisUrl, env.databaseUrl, env.prefix, env.schema);
  }

  progress('ledger: journal entries/s at block sizes 1, 100, 1000');
  const ledger = await ledgerJournal(env, [1, 100, 1000]);
  for (const l of ledger)
    progress(`  batch ${l.batch}: ${fmt.rate(l.perSecond)} entries/s (bare ${fmt.rate(l.barePerSecond)})`);

  writeFileSync(
    'BENCHMARKS.md',
    render(env.machine, env.seconds, hello, bare, asks, vouchers, http, ledger, ussd, sse, sockets),
  );
  progress('wrote BENCHMARKS.md');
}

/** Level by level, the run with the higher rate. */
function better(a: LevelResult[], b: LevelResult[]): LevelResult[] {
  return a.map((x, i) => {
    const y = b[i];
    return y && y.perSecond > x.perSecond ? y : x;
  });
}

function render(
  machine: string,
  seconds: number,
  hello: LevelResult,
  bare: LevelResult[],
  asks: LevelResult[],
  vouchers: { spread: LevelResult; hot: LevelResult },
  http: { spread: LevelResult; hot: LevelResult },
  ledger: LedgerLevel[],
  ussd: LevelResult[],
  sse: SseResult,
  sockets: SocketsResult,
): string {
  const socketRow = (name: string, s: SocketSide): string =>
    `| ${name} | ${fmt.rate(s.connected)} of ${fmt.rate(s.asked)} | ${fmt.rate(s.connected / s.connectSeconds)} | ${s.kbPerConnection.toFixed(1)} | ${s.roomSize} × ${s.events} | ${fmt.rate(s.deliveriesPerSecond)} | ${fmt.ms(s.latencyP50Ms)} | ${fmt.ms(s.latencyP99Ms)} | ${s.failed} |`;
  const echo64 = asks.find((a) => a.concurrency === 64);
  const voucherRow = (name: string, r: LevelResult): string =>
    `| ${name} | ${r.concurrency} | ${fmt.rate(r.perSecond)} | ${fmt.ms(r.p50Ms)} | ${fmt.ms(r.p99Ms)} | ${r.errors} | **${fmt.ratio(r.perSecond, echo64?.perSecond ?? NaN)}** |`;
  const rows = asks.map((a, i) => {
    const b = bare[i];
    return `| ${a.concurrency} | ${fmt.rate(a.perSecond)} | ${fmt.ms(a.p50Ms)} | ${fmt.ms(a.p99Ms)} | ${a.errors} | ${fmt.rate(b?.perSecond ?? NaN)} | ${fmt.ms(b?.p99Ms ?? NaN)} | **${fmt.ratio(a.perSecond, b?.perSecond ?? NaN)}** | ${fmt.ratio(a.perSecond, hello.perSecond)} |`;
  });
  return `# Benchmarks

Measured by \`npm run bench\` on ${machine}, ${new Date().toISOString().slice(0, 10)}; ${seconds} s per
level after 1 s of warm-up. The limits and the echo \`ask()\` levels are each measured twice,
interleaved (limits, asks, limits, asks), and the better run of each is shown: this 2-core VM
loses CPU to its neighbours at times, and such a moment must flatter neither side of a ratio.
Redis and PostgreSQL are the machine's local services. Servers run in child processes; the load
generator is the \`npm run bench\` process itself. Reproduce with:

\`\`\`sh
REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
\`\`\`

## Limits (measured in the same run)

| Limit | Concurrency | Rate | p50 ms | p99 ms |
|---|---|---|---|---|
| uWebSockets.js hello world (autocannon) | ${hello.concurrency} connections | ${fmt.rate(hello.perSecond)} req/s | ${fmt.ms(hello.p50Ms)} | ${fmt.ms(hello.p99Ms)} |
${bare.map((b) => `| bare Redis XADD → XREADGROUP → XADD | ${b.concurrency} | ${fmt.rate(b.perSecond)} /s | ${fmt.ms(b.p50Ms)} | ${fmt.ms(b.p99Ms)} |`).join('\n')}

## Actor runtime: \`ask()\` through the echo actor

Every ask is a real round trip: XADD to the partition mailbox, the worker process reads a batch,
applies it, commits the changed snapshots to PostgreSQL in one transaction (commit-before-reply),
acknowledges, and replies on the gateway's reply stream.

| Concurrent askers | asks/s | p50 ms | p99 ms | errors | bare Redis /s | bare p99 ms | ask / bare Redis | ask / uWS hello |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

## Vouchers: redemptions through the voucher actor

Each redemption is an ask to the voucher actor: the redemption rules on its state, a new
snapshot and a ledger entry in the outbox in one commit, then the reply. Measured at the actor
(the HTTP layer's registry look-ups and supplier signature checks are not in these figures).

| Vouchers | Concurrent | redemptions/s | p50 ms | p99 ms | errors | vs echo ask() at 64 |
|---|---|---|---|---|---|---|
${voucherRow('10,000 distinct', vouchers.spread)}
${voucherRow('1 hot voucher', vouchers.hot)}

The same through the whole HTTP stack: a gateway process (API key, RFC 9421 signature check,
supplier and product look-ups, idempotency, the ask) in front of the worker process; the load
generator signs every request.

| Vouchers | Concurrent | redemptions/s | p50 ms | p99 ms | errors | vs echo ask() at 64 |
|---|---|---|---|---|---|---|
${voucherRow('10,000 distinct (HTTP)', http.spread)}
${voucherRow('1 hot voucher (HTTP)', http.hot)}

## USSD: hops through the gateway

Each concurrent session walks five hops (menu, a choice, the next screen, back, home), each a
\`POST /api/ussd\` with the cumulative text to a gateway process: service-code allowlist,
per-phone rate limit (Redis), the phone's owner (cached), an ask to the session actor (xstate
transition, write-behind snapshot), the live-sessions index (Redis). Then it starts a new session.

| Concurrent sessions | hops/s | p50 ms | p99 ms | errors | vs echo ask() at 64 |
|---|---|---|---|---|---|
${ussd.map((u) => `| ${u.concurrency} | ${fmt.rate(u.perSecond)} | ${fmt.ms(u.p50Ms)} | ${fmt.ms(u.p99Ms)} | ${u.errors} | **${fmt.ratio(u.perSecond, echo64?.perSecond ?? NaN)}** |`).join('\n')}

Aim (issue 5): 8,000 hops/s with p99 under 50 ms on this 2-core machine.

## Oracle: SSE streams held at once

${sse.streams} sessions each open \`POST /messages/:id\` with \`stream: true\` at the same time, through a
gateway process; the agent is an OpenAI-compatible model served by the bench process that
answers in 20 tokens 250 ms apart (~5 s a stream). Memory is the gateway's resident set while
all streams are open, less before, per stream. The baseline is the same model called directly by
the same number of concurrent clients.

| Streams | open at once | KiB per stream | first token p50 ms | p99 ms | direct p50 ms | direct p99 ms | errors |
|---|---|---|---|---|---|---|---|
| ${sse.streams} | ${sse.opened} | ${sse.kbPerStream.toFixed(1)} | ${fmt.ms(sse.ttftP50Ms)} | ${fmt.ms(sse.ttftP99Ms)} | ${fmt.ms(sse.directTtftP50Ms)} | ${fmt.ms(sse.directTtftP99Ms)} | ${sse.errors} |

Where the first-token time goes (profiled with \`--cpu-prof\` on the gateway, this machine): the
1,000 requests reach one single-threaded gateway in the same instant. Each one's UCAN invocation
(CAR decoding, CID hashing, an Ed25519 check) costs about 1 ms of that event loop, then two asks
to the session's chat actor and the model request follow, so the last stream's model call leaves
1–2 s after the burst (run to run) and the model adds its own 250 ms. The gateway, not the
worker, Redis or the model, is the limit here (the worker stays mostly idle); more gateway
processes behind a load balancer divide it. Already taken out: importing each caller's public
key on every check (now imported once), \`fetch\` for the model call (node:http with keep-alive
is ~1.5 ms cheaper per call in such a burst), and 10 abort polls a second per turn (an abort is
now an event on the session stream the turn already follows).

## Real-time: socket.io connections and room fan-out

${fmt.rate(sockets.hearth.asked)} socket.io clients (websocket transport, one engine connection each) connect to a gateway
process in waves of 250, spread over rooms of ${sockets.hearth.roomSize}, and stay connected; each hearth handshake checks
a UCAN delegation and the session's owner (an ask to its chat actor). Memory is the server's
resident set with all connected, less before, per connection. Then ${sockets.hearth.events} agent events are written to
one session's Redis stream (as a turn writes them) and the time until every socket of that busy
room has all of them gives the fan-out rate (events × sockets per second) and each event's
latency from its write. The baseline is a bare socket.io server on uWebSockets.js (no auth, no
Redis) measured the same way in the same run; its events are emitted by the server itself.

| Server | connected | connections/s | KiB per connection | room × events | deliveries/s | latency p50 ms | p99 ms | failed |
|---|---|---|---|---|---|---|---|---|
${socketRow('hearth gateway', sockets.hearth)}
${socketRow('bare socket.io (limit)', sockets.bare)}

Fan-out / limit: **${fmt.ratio(sockets.hearth.deliveriesPerSecond, sockets.bare.deliveriesPerSecond)}**; memory per connection / limit:
**${fmt.ratio(sockets.hearth.kbPerConnection, sockets.bare.kbPerConnection)}**. All ${fmt.rate(sockets.hearth.asked)} clients live in the bench process, which
parses every delivery: at these rates the receiving side, not the server, sets the pace for both.

## Ledger: journal entries/s

The ledger actor's write path (\`appendBlock\`): read up to a block's worth of \`ledger\` rows
from the outbox (deleting them), hash every entry and the Merkle tree, insert the block and its
entries and move the head, in one transaction. The baseline is bare
PostgreSQL inserting the same number of rows (same JSON body) per transaction, in the same run.

| Block size | entries | entries/s | bare PostgreSQL rows/s | journal / bare |
|---|---|---|---|---|
${ledger.map((l) => `| ${l.batch} | ${fmt.rate(l.entries)} | ${fmt.rate(l.perSecond)} | ${fmt.rate(l.barePerSecond)} | **${fmt.ratio(l.perSecond, l.barePerSecond)}** |`).join('\n')}

Aim (issue 2): ask() throughput at least 40% of the bare Redis round trip rate; p99 under 20 ms
at 64 concurrent.

## Reading these numbers

- All four parties (load generator, worker, Redis, PostgreSQL) share the machine's cores, so an
  absolute rate says as much about the machine as about hearth; the ratios to the limits of the
  same run are the comparable figures. Runs on this 2-core machine vary by ±20% from one to the
  next (the limits move with them).
- The worker process runs its ledger actor throughout, as in production: during the voucher
  runs it drains their ledger entries from the outbox into journal blocks.
- At 1 asker the ask is bounded by its own PostgreSQL commit (a synchronous WAL flush plus one
  fenced upsert statement, about 1 ms here): the bare Redis path has no database at all.
- With more askers the worker reads every partition it owns in one XREADGROUP, applies the
  round, and commits it in one statement while the next round forms, so commits grow with load.
`;
}

async function cleanup(redisUrl: string, databaseUrl: string, prefix: string, schema: string): Promise<void> {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
  redis.disconnect();
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
