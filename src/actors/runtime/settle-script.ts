import { createHash } from 'node:crypto';
import { isCluster, type RedisClient } from './redis.js';
import type { OutgoingReply } from './ports.js';

/**
 * Acknowledges the batches of one or more mailboxes and sends their replies, in one script.
 * KEYS: the m mailboxes, then the reply streams. ARGV[1]: the group; ARGV[2]: m; then, per
 * mailbox, the number of its entry ids and the ids; then, per reply, the index of its stream in
 * KEYS, its corr, ok and body (a `ReplyEntry`, entry-codec.ts). Replies go with NOMKSTREAM: a
 * gateway that has gone away leaves no stream behind. A reply Redis refuses (a key of another
 * type in its place) is counted, not fatal: its entry is acknowledged and nothing can send it
 * again. Returns that count.
 */
const SETTLE = `
local m = tonumber(ARGV[2])
local at = 3
for k = 1, m do
  local n = tonumber(ARGV[at])
  at = at + 1
  for i = at, at + n - 1, 1000 do
    redis.call('XACK', KEYS[k], ARGV[1], unpack(ARGV, i, math.min(i + 999, at + n - 1)))
  end
  at = at + n
end
local refused = 0
for i = at, #ARGV, 4 do
  local r = redis.pcall('XADD', KEYS[tonumber(ARGV[i])], 'NOMKSTREAM', 'MAXLEN', '~', '10000', '*',
    'corr', ARGV[i + 1], 'ok', ARGV[i + 2], 'body', ARGV[i + 3])
  if type(r) == 'table' and r.err then refused = refused + 1 end
end
return refused`;

const SETTLE_SHA = createHash('sha1').update(SETTLE).digest('hex');

/** One mailbox's entries to acknowledge. */
export interface Acks {
  stream: string;
  ids: readonly string[];
}

/**
 * One script call for a whole round instead of an XACK per partition and an XADD per reply: each
 * ioredis command costs the worker ~10 µs of its event loop (measured: 26 replies as commands
 * ~320–430 µs, as one script ~125–165 µs, Redis +20 µs). The script is loaded once (EVALSHA,
 * EVAL again after NOSCRIPT).
 */
export async function ackAndReply(
  redis: RedisClient,
  group: string,
  acks: readonly Acks[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const mailboxes = acks.filter((a) => a.ids.length > 0);
  if (mailboxes.length === 0 && replies.length === 0) return 0;
  const streams = [...new Set(replies.map((r) => r.stream))];
  if (isCluster(redis) && mailboxes.length + streams.length > 1)
    return settlePerKey(redis, group, mailboxes, streams, replies);
  return settle(redis, group, mailboxes, streams, replies);
}

/**
 * On a cluster, where a script's keys must share a slot: one call per reply stream, all at once,
 * and the acknowledgements after them, one call per mailbox. A crash between the two leaves the
 * entries pending: the next owner finds them applied and acknowledges them as redeliveries,
 * while their askers have their replies. (The other order would lose replies: acknowledged
 * entries are never read again.)
 */
async function settlePerKey(
  redis: RedisClient,
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const sent = await Promise.all(
    streams.map((s) =>
      settle(
        redis,
        group,
        [],
        [s],
        replies.filter((r) => r.stream === s),
      ),
    ),
  );
  await Promise.all(mailboxes.map((a) => settle(redis, group, [a], [], [])));
  return sent.reduce((sum, n) => sum + n, 0);
}

async function settle(
  redis: RedisClient,
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const slot = new Map(streams.map((s, i) => [s, mailboxes.length + i + 1]));
  const args: Array<string | number> = [...mailboxes.map((a) => a.stream), ...streams, group, mailboxes.length];
  for (const a of mailboxes) args.push(a.ids.length, ...a.ids);
  for (const r of replies) args.push(slot.get(r.stream)!, r.corr, r.ok ? '1' : '0', r.body);
  const keys = mailboxes.length + streams.length;
  // Plain EVALSHA, and EVAL when Redis has forgotten the script (a restart, SCRIPT FLUSH): both
  // ordinary commands, sent at once (redis.ts keeps scripts out of the auto-pipeline). Not
  // ioredis's defineCommand: an auto-pipeline copies the custom commands a client has when the
  // pipeline is made, so one defined after another command of the same tick opened it is not
  // there, and ioredis then throws an uncaught TypeError ("results[i] is not iterable",
  // redis/ioredis#1931). Seen in CI; tested.
  try {
    return (await redis.evalsha(SETTLE_SHA, keys, ...args)) as number;
  } catch (err) {
    if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
    return (await redis.eval(SETTLE, keys, ...args)) as number;
  }
}
