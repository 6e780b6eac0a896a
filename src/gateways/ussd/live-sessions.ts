import type { Redis } from 'ioredis';
import type { Keys } from '../../actors/runtime/keys.js';
import { perTick } from '../per-tick.js';

export interface LiveSession {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  state: string;
  startedAt: string;
  lastActivityAt: string;
}

/**
 * Records the hops of one turn of the event loop, in order. ARGV, five per hop: last activity
 * (ms), session id, summary JSON, phone number, "1" when the session ended. An ended session
 * leaves the index, but only its own phone ends it (another phone reusing the id is refused).
 */
const TOUCH = `for i = 1, #ARGV, 5 do
  local id = ARGV[i + 1]
  if ARGV[i + 4] == '1' then
    local known = redis.call('HGET', KEYS[2], id)
    local ok, summary = pcall(cjson.decode, known or 'null')
    -- An unreadable summary is no owner's: the session may go.
    if not (ok and type(summary) == 'table' and summary.phoneNumber ~= ARGV[i + 3]) then
      redis.call('ZREM', KEYS[1], id)
      redis.call('HDEL', KEYS[2], id)
    end
  else
    redis.call('ZADD', KEYS[1], ARGV[i], id)
    redis.call('HSET', KEYS[2], id, ARGV[i + 2])
  end
end
return 0`;

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

  private readonly record = perTick(async (hops: Array<{ s: LiveSession; ended: boolean }>) => {
    const args = hops.flatMap(({ s, ended }) => [
      Date.parse(s.lastActivityAt),
      s.sessionId,
      ended ? '' : JSON.stringify(s),
      s.phoneNumber,
      ended ? '1' : '0',
    ]);
    await this.redis.eval(TOUCH, 2, this.keys.ussdLive(), this.keys.ussdSummaries(), ...args);
    return hops.map(() => undefined);
  });

  /** Records a hop (or the session's end); the hops of one turn of the event loop go as one script. */
  async touch(s: LiveSession, ended: boolean): Promise<void> {
    await this.record({ s, ended });
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
    // A summary that is gone (the session ended between the two reads) or unreadable is left
    // out of both the list and the count: one bad row must not cost operators the whole list.
    const sessions = rows.flatMap((r) => {
      const s = r === null ? undefined : readable(r);
      return s ? [s] : [];
    });
    return { sessions, count: count - (ids.length - sessions.length) };
  }
}

function readable(raw: string): LiveSession | undefined {
  try {
    const s = JSON.parse(raw) as LiveSession | null;
    return s !== null && typeof s === 'object' && typeof s.sessionId === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}
