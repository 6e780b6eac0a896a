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

  async touch(s: LiveSession, ended: boolean): Promise<void> {
    const index = this.keys.ussdLive();
    const summaries = this.keys.ussdSummaries();
    if (ended) {
      // Only the session's own phone ends it here (another phone reusing the id is refused).
      const known = await this.redis.hget(summaries, s.sessionId);
      if (known && (JSON.parse(known) as LiveSession).phoneNumber !== s.phoneNumber) return;
      await this.redis.multi().zrem(index, s.sessionId).hdel(summaries, s.sessionId).exec();
      return;
    }
    await this.redis
      .multi()
      .zadd(index, Date.parse(s.lastActivityAt), s.sessionId)
      .hset(summaries, s.sessionId, JSON.stringify(s))
      .exec();
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
