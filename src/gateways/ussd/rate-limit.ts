import { createHmac } from 'node:crypto';
import { isCluster, type RedisClient } from '../../actors/runtime/redis.js';
import { perSlot } from '../../actors/runtime/hash-slot.js';
import type { Keys } from '../../actors/runtime/keys.js';
import { perTick } from '../per-tick.js';
import { TtlCache } from '../../ttl-cache.js';

/** Counts one request on each key (a key twice counts twice); returns each count after it. */
const COUNT = `local counts = {}
for i, key in ipairs(KEYS) do
  local c = redis.call('INCR', key)
  if c == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = c
end
return counts`;

/**
 * Requests per phone number per minute. Never by IP: an aggregator sends everyone's sessions
 * from the same few addresses. One INCR per request (with the key's expiry set on its first),
 * in a script (a MULTI block is written on its own, measured at ~130 µs of the gateway's event
 * loop per hop here) that counts all the requests of one turn of the event loop at once.
 */
export class PhoneRateLimit {
  /** Phone → key digest: the same few thousand phones come back hop after hop. */
  private readonly digests = new TtlCache<string, string>({ maxEntries: 50_000 });
  private readonly count = perTick((keys: string[]) =>
    perSlot(
      isCluster(this.redis),
      keys,
      (k) => k,
      async (group) => (await this.redis.eval(COUNT, group.length, ...group, 61_000)) as number[],
    ),
  );

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly perMinute: number,
    /** PIN_ENCRYPTION_KEY: the digest is keyed, so a key listing cannot be reversed by enumerating numbers. */
    private readonly secret: string,
  ) {}

  /** True while the phone is within its allowance; counts this request. */
  async allow(phone: string, now: Date): Promise<boolean> {
    const digest = this.digestOf(phone);
    const key = this.keys.ussdRate(digest, Math.floor(now.getTime() / 60_000));
    return (await this.count(key)) <= this.perMinute;
  }

  /** The phone number as it appears in the key: a keyed digest, so a key listing shows no numbers. */
  private digestOf(phone: string): string {
    let digest = this.digests.get(phone);
    if (digest === undefined) {
      digest = createHmac('sha256', this.secret).update(`hearth-ussd-rate:${phone}`).digest('hex').slice(0, 32);
      this.digests.set(phone, digest);
    }
    return digest;
  }
}
