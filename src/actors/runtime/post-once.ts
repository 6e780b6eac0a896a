import { ringCommand, sendPerNode } from './node-batch.js';
import { isCluster, type RedisClient } from './redis.js';

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
 * Adds an entry to `stream` unless `mark` says it was added in the last `ttlSeconds`: its id, or
 * null. On a cluster the mailbox's bell rings after it, in the same write (mailbox-bells.ts).
 */
export async function postOnce(
  redis: RedisClient,
  stream: string,
  mark: string,
  ttlSeconds: number,
  fields: readonly string[],
): Promise<string | null> {
  if (!isCluster(redis))
    return (await redis.eval(POST_ONCE, 2, stream, mark, String(ttlSeconds), ...fields)) as string | null;
  const [posted, rung] = sendPerNode(redis, [
    { key: stream, name: 'eval', args: [POST_ONCE, 2, stream, mark, String(ttlSeconds), ...fields] },
    ringCommand(stream),
  ]);
  rung!.catch(() => undefined); // a bell not rung only delays the round (mailbox-bells.ts)
  return (await posted) as string | null;
}
