import { createHash } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { sendPerNode, type KeyedCommand } from './node-batch.js';
import { isCluster, type RedisClient } from './redis.js';
import type { OutgoingReply } from '../../actors/runtime/ports.js';

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
 * On a cluster, where a script's keys must share a slot: one call per reply stream, then one per
 * mailbox for the acknowledgements, each set in one write per node (node-batch.ts). A crash
 * between the two leaves the entries pending: the next owner finds them applied and acknowledges
 * them as redeliveries, while their askers have their replies. (The other order would lose
 * replies: acknowledged entries are never read again.)
 */
async function settlePerKey(
  cluster: Cluster,
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const refused = await replyPerStream(cluster, group, streams, replies);
  await Promise.all(
    settleCalls(
      cluster,
      mailboxes.map((a) => settleCall(group, [a], [], [])),
    ),
  );
  return refused;
}

/**
 * A round's replies on a cluster: one script call per reply stream, in one write per node.
 * Returns how many Redis refused (see SETTLE).
 */
export async function replyPerStream(
  cluster: Cluster,
  group: string,
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const sent = await Promise.all(
    settleCalls(
      cluster,
      streams.map((s) =>
        settleCall(
          group,
          [],
          [s],
          replies.filter((r) => r.stream === s),
        ),
      ),
    ),
  );
  return sent.reduce((sum: number, n) => sum + Number(n), 0);
}

/** The scripts per node, and each one Redis has forgotten (NOSCRIPT) sent again in full. */
function settleCalls(cluster: Cluster, calls: readonly KeyedCommand[]): Array<Promise<unknown>> {
  return sendPerNode(cluster, calls).map((answer, i) =>
    answer.catch((err: unknown) => {
      if (!isNoScript(err)) throw err;
      return cluster.call('eval', SETTLE, ...calls[i]!.args.slice(1));
    }),
  );
}

/** One settle script's call: its EVALSHA arguments, keyed by its first key for the routing. */
function settleCall(
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): KeyedCommand {
  const { keys, args } = settleArgs(group, mailboxes, streams, replies);
  return { key: String(args[0]), name: 'evalsha', args: [SETTLE_SHA, keys, ...args] };
}

async function settle(
  redis: RedisClient,
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): Promise<number> {
  const { keys, args } = settleArgs(group, mailboxes, streams, replies);
  // Plain EVALSHA, and EVAL when Redis has forgotten the script (a restart, SCRIPT FLUSH): both
  // ordinary commands, sent at once (redis.ts keeps scripts out of the auto-pipeline). Not
  // ioredis's defineCommand: an auto-pipeline copies the custom commands a client has when the
  // pipeline is made, so one defined after another command of the same tick opened it is not
  // there, and ioredis then throws an uncaught TypeError ("results[i] is not iterable",
  // redis/ioredis#1931). Seen in CI; tested.
  try {
    return (await redis.evalsha(SETTLE_SHA, keys, ...args)) as number;
  } catch (err) {
    if (!isNoScript(err)) throw err;
    return (await redis.eval(SETTLE, keys, ...args)) as number;
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** The script's KEYS count and the rest of its arguments (KEYS first, then ARGV). */
function settleArgs(
  group: string,
  mailboxes: readonly Acks[],
  streams: readonly string[],
  replies: readonly OutgoingReply[],
): { keys: number; args: Array<string | number> } {
  const slot = new Map(streams.map((s, i) => [s, mailboxes.length + i + 1]));
  const args: Array<string | number> = [...mailboxes.map((a) => a.stream), ...streams, group, mailboxes.length];
  for (const a of mailboxes) args.push(a.ids.length, ...a.ids);
  for (const r of replies) args.push(slot.get(r.stream)!, r.corr, r.ok ? '1' : '0', r.body);
  return { keys: mailboxes.length + streams.length, args };
}
