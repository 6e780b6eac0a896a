import { createHash } from 'node:crypto';
import { isCluster, type RedisClient } from '../../store/redis/redis.js';
import { perSlot } from '../../store/redis/hash-slot.js';
import type { Keys } from '../../store/redis/keys.js';
import { AppError, isStoreUnavailable } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import { perTick } from '../per-tick.js';
import { authKeys } from './auth-keys.js';

/**
 * GCRA (a token bucket kept as one timestamp per subject): each key holds the "theoretical
 * arrival time" of the next request; a request fits while the backlog stays within the burst.
 * Redis's own clock, so every gateway agrees. Per key: ARGV interval (ms a request "costs"),
 * burst (how many may come at once), mode: `take` counts it if it fits, `peek` only looks,
 * `charge` counts it whatever. Answers, per key, the ms until one more would fit (0: it fits).
 */
const GCRA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[i * 3 - 2])
  local burst = tonumber(ARGV[i * 3 - 1])
  local mode = ARGV[i * 3]
  local tat = tonumber(redis.call('GET', key) or '0')
  if tat < now then tat = now end
  local wait = tat - now - (burst - 1) * interval
  if wait < 0 then wait = 0 end
  out[i] = wait
  if mode == 'charge' or (mode == 'take' and wait == 0) then
    -- Never more than one full allowance ahead: failures past it do not push a lock-out further.
    tat = math.min(tat + interval, now + burst * interval)
    redis.call('SET', key, tostring(tat), 'PX', tat - now + 1)
  end
end
return out`;

type Mode = 'take' | 'peek' | 'charge';
type Subject = 'api-key' | 'did' | 'auth-failures';

export interface RateLimitOptions {
  /** Requests per minute per API key, up to that many at once; 0: no limit. */
  apiKeyPerMinute: number;
  /** Requests per minute per DID on the oracle's routes; 0: no limit. */
  didPerMinute: number;
  /** Failed authentications per minute per client address before it is refused; 0: no limit. */
  authFailuresPerMinute: number;
}

/**
 * hearth's request limits, held in Redis so that they hold across gateways: per API key on
 * `/v1`, per DID on the oracle, and failed authentications per client address (a key or token
 * guessed at is refused before it is checked). The checks of one turn of the event loop go to
 * Redis as one script call.
 */
interface Check {
  key: string;
  interval: number;
  burst: number;
  mode: Mode;
}

/** Where the buckets are kept: answers, per check, the ms until one more would fit (0: it fits). */
export type Buckets = (check: Check) => Promise<number>;

/** The buckets in Redis (the script above): the checks of one turn of the event loop in one call. */
export function redisBuckets(redis: RedisClient): Buckets {
  return perTick((checks: Check[]) =>
    perSlot(
      isCluster(redis),
      checks,
      (c) => c.key,
      async (group) =>
        (await redis.eval(
          GCRA,
          group.length,
          ...group.map((c) => c.key),
          ...group.flatMap((c) => [c.interval, c.burst, c.mode]),
        )) as number[],
    ),
  );
}

export class RateLimits {
  private lastWarned = 0;

  constructor(
    private readonly run: Buckets,
    private readonly keys: Keys,
    private readonly o: RateLimitOptions,
    private readonly log: Logger,
  ) {}

  /** Counts one request of an API key; 429 RATE_LIMITED when it is over its allowance. */
  takeApiKey(keyId: string): Promise<void> {
    return this.check('api-key', authKeys.rateLimit(this.keys, 'key', keyId), this.o.apiKeyPerMinute, 'take');
  }

  /** Counts one oracle request of a DID; 429 RATE_LIMITED when it is over its allowance. */
  takeDid(did: string): Promise<void> {
    return this.check('did', authKeys.rateLimit(this.keys, 'did', digest(did)), this.o.didPerMinute, 'take');
  }

  /** 429 RATE_LIMITED while the address has used up its failed authentications. */
  checkAuthFailures(address: string): Promise<void> {
    return this.check('auth-failures', this.failureKey(address), this.o.authFailuresPerMinute, 'peek');
  }

  /** Counts one failed authentication of the address. */
  async chargeAuthFailure(address: string): Promise<void> {
    const perMinute = this.o.authFailuresPerMinute;
    if (perMinute <= 0) return;
    await this.counted(() => this.run({ key: this.failureKey(address), ...allowance(perMinute), mode: 'charge' }));
  }

  private failureKey(address: string): string {
    return authKeys.rateLimit(this.keys, 'auth', digest(address || 'unknown'));
  }

  private async check(subject: Subject, key: string, perMinute: number, mode: Mode): Promise<void> {
    if (perMinute <= 0) return;
    const waitMs = await this.counted(() => this.run({ key, ...allowance(perMinute), mode }));
    if (waitMs !== undefined && waitMs > 0) throw rateLimited(subject, waitMs);
  }

  /**
   * Limits fail open while Redis cannot be reached: a read that needs only PostgreSQL is still
   * served (an API key's 256-bit secret is not guessed in an outage's minutes, and UCANs need
   * Redis for their replay check anyway). Said in the log at most every 10 s.
   */
  private async counted<T>(run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      if (Date.now() - this.lastWarned > 10_000) {
        this.lastWarned = Date.now();
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'rate limits not counted: redis unreachable',
        );
      }
      return undefined;
    }
  }
}

/** `perMinute` a minute, and as many at once. */
function allowance(perMinute: number): { interval: number; burst: number } {
  return { interval: Math.ceil(60_000 / perMinute), burst: perMinute };
}

/** Key parts from client text (a DID, an address) as a short digest: bounded and key-safe. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

const what: Record<Subject, string> = {
  'api-key': 'this API key has made too many requests',
  did: 'this DID has made too many requests',
  'auth-failures': 'too many failed authentications from this address',
};

function rateLimited(subject: Subject, waitMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError(
    'RATE_LIMITED',
    `${what[subject]}; retry in ${retryAfterSeconds} s`,
    { limit: subject, retryAfterSeconds },
    true,
  );
}
