import type { Cluster } from 'ioredis';
import { sendPerNode, type KeyedCommand } from '../../store/redis/node-batch.js';
import { isCluster, type RedisClient } from '../../store/redis/redis.js';
import type { Keys } from '../../store/redis/keys.js';
import { perTick } from '../per-tick.js';
import { USSD_SHARDS, ussdKeys } from './ussd-keys.js';

export interface LiveSession {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  state: string;
  startedAt: string;
  lastActivityAt: string;
}

/**
 * Records the hops of one turn of the event loop, in order. KEYS: per shard, its index and its
 * summaries. ARGV, six per hop: the position of its shard's index in KEYS, last activity (ms),
 * session id, summary JSON, phone number, "1" when the session ended. An ended session leaves
 * the index, but only its own phone ends it (another phone reusing the id is refused).
 */
const TOUCH = `for i = 1, #ARGV, 6 do
  local k = tonumber(ARGV[i])
  local index, summaries = KEYS[k], KEYS[k + 1]
  local at, id, summary, phone, ended = ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  if ended == '1' then
    local known = redis.call('HGET', summaries, id)
    local ok, was = pcall(cjson.decode, known or 'null')
    -- An unreadable summary is no owner's: the session may go.
    if not (ok and type(was) == 'table' and was.phoneNumber ~= phone) then
      redis.call('ZREM', index, id)
      redis.call('HDEL', summaries, id)
    end
  else
    redis.call('ZADD', index, at, id)
    redis.call('HSET', summaries, id, summary)
  end
end
return 0`;

/** Forgets sessions idle past the limit. KEYS: a shard's index and summaries. ARGV: their ids. */
const FORGET = `redis.call('ZREM', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[2], unpack(ARGV))
return 0`;

/** Idle sessions forgotten per shard per list at most (within what Lua's unpack takes). */
const FORGET_PER_LIST = 5_000;

/**
 * The sessions still alive, for `GET /api/ussd/sessions`: a sorted set by last activity and a
 * hash of summaries in Redis, written by whichever gateway served the hop, in one of 16 shards
 * by session id (keys.ts). A session idle past the limit, or ended, drops out.
 *
 * On a Redis Cluster a turn's hops are plain commands (HSET and ZADD per hop; TOUCH for an ended
 * one, which must check its phone), in one write per node (node-batch.ts), where one script per
 * shard was up to 16 ioredis calls a turn, about one per hop at 150 sessions. The lists and counts
 * take the same connections, so a gateway's list comes after the hops it has recorded.
 */
export class LiveSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly idleMs: number,
  ) {}

  private readonly record = perTick(async (hops: Hop[]) => {
    const redis = this.redis;
    if (isCluster(redis)) await this.touchOnNodes(redis, hops);
    else await this.touchAll(hops);
    return hops.map(() => undefined);
  });

  /** One script for the hops of every shard, on one Redis. */
  private async touchAll(hops: Hop[]): Promise<void> {
    const shards = [...new Set(hops.map((h) => ussdKeys.shardOf(h.s.sessionId)))];
    const keys = shards.flatMap((shard) => [ussdKeys.live(this.keys, shard), ussdKeys.summaries(this.keys, shard)]);
    const args = hops.flatMap(({ s, ended }) => [
      2 * shards.indexOf(ussdKeys.shardOf(s.sessionId)) + 1,
      Date.parse(s.lastActivityAt),
      s.sessionId,
      ended ? '' : JSON.stringify(s),
      s.phoneNumber,
      ended ? '1' : '0',
    ]);
    await this.redis.eval(TOUCH, keys.length, ...keys, ...args);
  }

  /**
   * The hops as plain commands, each keyed by its shard's index: a shard's commands stay in
   * order, an end after the hops before it, even across a slot's move (node-batch.ts).
   */
  private async touchOnNodes(cluster: Cluster, hops: Hop[]): Promise<void> {
    const commands = hops.flatMap(({ s, ended }): KeyedCommand[] => {
      const shard = ussdKeys.shardOf(s.sessionId);
      const index = ussdKeys.live(this.keys, shard);
      const summaries = ussdKeys.summaries(this.keys, shard);
      const at = Date.parse(s.lastActivityAt);
      if (ended)
        return [
          { key: index, name: 'eval', args: [TOUCH, 2, index, summaries, 1, at, s.sessionId, '', s.phoneNumber, '1'] },
        ];
      // The summary first: should another gateway end the session between the two, what is left
      // is an index entry without a summary, which lists drop and forget once idle; a summary
      // without its index entry would never be forgotten.
      return [
        { key: index, name: 'hset', args: [summaries, s.sessionId, JSON.stringify(s)] },
        { key: index, name: 'zadd', args: [index, at, s.sessionId] },
      ];
    });
    await Promise.all(sendPerNode(cluster, commands));
  }

  /**
   * One command on a shard: on a cluster on the connection its hops are recorded on (so it comes
   * after them), keyed by the shard's index.
   */
  private async run<T>(shard: number, name: string, ...args: Array<string | number>): Promise<T> {
    const redis = this.redis;
    if (!isCluster(redis)) return (await redis.call(name, ...args)) as T;
    const [answer] = sendPerNode(redis, [{ key: ussdKeys.live(this.keys, shard), name, args }]);
    return (await answer) as T;
  }

  /** Records a hop (or the session's end); the hops of one turn of the event loop go as one script. */
  async touch(s: LiveSession, ended: boolean): Promise<void> {
    await this.record({ s, ended });
  }

  /** The live sessions, newest first (at most `limit`), and how many there are in all. */
  async list(now: Date, limit = 1_000): Promise<{ sessions: LiveSession[]; count: number }> {
    const horizon = now.getTime() - this.idleMs;
    const shards = Array.from({ length: USSD_SHARDS }, (_, shard) => shard);
    const found = await Promise.all(shards.map((shard) => this.listShard(shard, horizon, limit)));
    // Each shard's newest `limit`, merged: the newest `limit` of all are among them.
    const newest = found
      .flatMap((f) => f.sessions)
      .sort((a, b) => b.at - a.at)
      .slice(0, limit);
    const count = found.reduce((n, f) => n + f.count, 0) - found.reduce((n, f) => n + f.unreadable, 0);
    return { sessions: newest.map((n) => n.session), count };
  }

  /** How many sessions are live (for the metrics: a ZCOUNT per shard, nothing read). */
  async count(now: Date): Promise<number> {
    const horizon = now.getTime() - this.idleMs;
    const counts = await Promise.all(
      Array.from({ length: USSD_SHARDS }, (_, shard) =>
        this.run<number>(shard, 'zcount', ussdKeys.live(this.keys, shard), horizon, '+inf'),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  private async listShard(
    shard: number,
    horizon: number,
    limit: number,
  ): Promise<{ sessions: Array<{ session: LiveSession; at: number }>; count: number; unreadable: number }> {
    const index = ussdKeys.live(this.keys, shard);
    const summaries = ussdKeys.summaries(this.keys, shard);
    // Forget the expired ones first, so the set stays as small as the live traffic.
    const expired = await this.run<string[]>(
      shard,
      'zrangebyscore',
      index,
      '-inf',
      `(${horizon}`,
      'LIMIT',
      0,
      FORGET_PER_LIST,
    );
    if (expired.length > 0) await this.run(shard, 'eval', FORGET, 2, index, summaries, ...expired);
    const [scored, count] = await Promise.all([
      this.run<string[]>(shard, 'zrevrangebyscore', index, '+inf', horizon, 'WITHSCORES', 'LIMIT', 0, limit),
      this.run<number>(shard, 'zcount', index, horizon, '+inf'),
    ]);
    if (scored.length === 0) return { sessions: [], count, unreadable: 0 };
    const ids = scored.filter((_, i) => i % 2 === 0);
    const rows = await this.run<Array<string | null>>(shard, 'hmget', summaries, ...ids);
    // A summary that is gone (the session ended between the two reads) or unreadable is left
    // out of both the list and the count: one bad row must not cost operators the whole list.
    const sessions = rows.flatMap((r, i) => {
      const s = r === null ? undefined : readable(r);
      return s ? [{ session: s, at: Number(scored[2 * i + 1]) }] : [];
    });
    return { sessions, count, unreadable: ids.length - sessions.length };
  }
}

interface Hop {
  s: LiveSession;
  ended: boolean;
}

function readable(raw: string): LiveSession | undefined {
  try {
    const s = JSON.parse(raw) as LiveSession | null;
    return s !== null && typeof s === 'object' && typeof s.sessionId === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}
