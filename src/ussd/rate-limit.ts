import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from '../actors/runtime/keys.js';

/**
 * Requests per phone number per minute. Never by IP: an aggregator sends everyone's sessions
 * from the same few addresses. One INCR per request (with the key's expiry set on its first).
 */
export class PhoneRateLimit {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly perMinute: number,
  ) {}

  /** True while the phone is within its allowance; counts this request. */
  async allow(phone: string, now: Date): Promise<boolean> {
    const digest = createHash('sha256').update(phone).digest('hex').slice(0, 32);
    const key = this.keys.ussdRate(digest, Math.floor(now.getTime() / 60_000));
    const [[, count]] = (await this.redis.multi().incr(key).pexpire(key, 61_000).exec()) as [[null, number]];
    return count <= this.perMinute;
  }
}
