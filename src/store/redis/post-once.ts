import { ringCommand, sendPerNode } from './node-batch.js';
import { isCluster, type Cluster, type RedisClient } from './redis.js';

/**
 * XADD unless the mark is there: sets the mark (for ARGV[1] seconds) and adds the entry in one
 * script, so the entry is added once however often it is posted while the mark lives. KEYS[1]:
 * the mailbox; KEYS[2]: the mark, in the mailbox's slot. ARGV[2..]: the entry's fields.
 */
const POST_ONCE = `
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) then
  return redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
end
return false`;

/**
 * The same for many entries, in order, in one script (one Redis only: its keys span slots).
 * KEYS: each entry's mailbox and mark; ARGV[1]: the marks' lifetime, then per entry its number
 * of fields and the fields.
 */
const POST_MANY_ONCE = `
local out, a = {}, 2
for i = 1, #KEYS, 2 do
  local n = tonumber(ARGV[a])
  if redis.call('SET', KEYS[i + 1], '1', 'NX', 'EX', ARGV[1]) then
    out[#out + 1] = redis.call('XADD', KEYS[i], '*', unpack(ARGV, a + 1, a + n))
  else
    out[#out + 1] = false
  end
  a = a + n + 1
end
return out`;

/** An entry to add to `stream` unless `mark` says it was added while the mark lived. */
export interface OncePost {
  stream: string;
  mark: string;
  fields: readonly string[];
}

/**
 * Adds each entry unless its mark says it was added in the last `ttlSeconds`, in the order given;
 * for each, its id or null. On one Redis all go in one script call (a commit's tells were one
 * EVAL each, a write and a round trip per tell, measured: about one Redis call per redemption);
 * on a cluster each goes to its mailbox's node, its bell rung after it in the same write
 * (mailbox-bells.ts).
 */
export async function postEachOnce(
  redis: RedisClient,
  posts: readonly OncePost[],
  ttlSeconds: number,
): Promise<Array<string | null>> {
  if (posts.length === 0) return [];
  if (!isCluster(redis)) {
    const keys = posts.flatMap((p) => [p.stream, p.mark]);
    const args = [String(ttlSeconds), ...posts.flatMap((p) => [String(p.fields.length), ...p.fields])];
    // EVAL with the script, not EVALSHA with a fallback: one call a commit, so its few hundred
    // bytes cost little, and a fallback sent after a NOSCRIPT could land behind the next
    // commit's tells (Redis keeps the compiled script either way).
    const ids = (await redis.eval(POST_MANY_ONCE, keys.length, ...keys, ...args)) as Array<string | null | false>;
    return ids.map((id) => id || null);
  }
  const cluster = redis;
  return Promise.all(posts.map((p) => postOnCluster(cluster, p, ttlSeconds)));
}

async function postOnCluster(redis: Cluster, p: OncePost, ttlSeconds: number): Promise<string | null> {
  const [posted, rung] = sendPerNode(redis, [
    { key: p.stream, name: 'eval', args: [POST_ONCE, 2, p.stream, p.mark, String(ttlSeconds), ...p.fields] },
    ringCommand(p.stream),
  ]);
  rung!.catch(() => undefined); // a bell not rung only delays the round (mailbox-bells.ts)
  return (await posted) as string | null;
}
