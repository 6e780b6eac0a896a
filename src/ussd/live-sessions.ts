import type { Redis } from 'ioredis';
import type { Keys } from '../actors/runtime/keys.js';

export interface LiveSession {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  state: string;
  startedAt: string;
  lastActivityAt: string;
}

const TOUCH = `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])`;

/** Only the session's own phone ends it (another phone reusing the id is refused). */
const END = `local known = redis.call('HGET', KEYS[2], ARGV[1])
if known and cjson.decode(known).phoneNumber ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;

/**
 * The sessions still alive, for `GET /api/ussd/sessions`: a sorted set by last activity and a
 * hash of summaries in Redis, written by whichever gateway served the hop. A session idle past
 * the limit, or ended, drops out.
 */
export class LiveSessions {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly idleMs: number,
  ) {}

  /**
   * Records a hop (or the session's end). One script per hop, not a MULTI block: a single command
   * rides the connection's auto-pipelining with the other hops of the same tick.
   */
  async touch(s: LiveSession, ended: boolean): Promise<void> {
    const keys = [this.keys.ussdLive(), this.keys.ussdSummaries()];
    if (ended) await this.redis.eval(END, 2, ...keys, s.sessionId, s.phoneNumber);
    else await this.redis.eval(TOUCH, 2, ...keys, Date.parse(s.lastActivityAt), s.sessionId, JSON.stringify(s));
  }

  /** The live sessions, newest first (at most `limit`), and how many there are in all. */
  async list(now: Date, limit = 1_000): Promise<{ sessions: LiveSession[]; count: number }> {
    const index = this.keys.ussdLive();
    const summaries = this.keys.ussdSummaries();
    const horizon = now.getTime() - this.idleMs;
    // Forget the expired ones first, so the set stays as small as the live traffic.
    const expired = await this.redis.zrangebyscore(index, '-inf', `(${horizon}`, 'LIMIT', 0, 10_000);
    if (expired.length > 0)
      await this.redis
        .multi()
        .zrem(index, ...expired)
        .hdel(summaries, ...expired)
        .exec();
    const [ids, count] = await Promise.all([
      this.redis.zrevrangebyscore(index, '+inf', horizon, 'LIMIT', 0, limit),
      this.redis.zcount(index, horizon, '+inf'),
    ]);
    if (ids.length === 0) return { sessions: [], count };
    const rows = await this.redis.hmget(summaries, ...ids);
    return { sessions: rows.flatMap((r) => (r ? [JSON.parse(r) as LiveSession] : [])), count };
  }
}
