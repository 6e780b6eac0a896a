import { createHmac } from 'node:crypto';
import type { Keys } from '../../store/redis/keys.js';
import type { RedisClient } from '../../store/redis/redis.js';
import { ussdKeys } from './ussd-keys.js';

/** Unknown voucher codes a supplier's phone may enter per UTC day before code entry stops. */
const UNKNOWN_CODES_PER_DAY = 10;

/**
 * Counts the unknown voucher codes (right check digit, no such voucher) a supplier's phone
 * enters. A code is 9 digits of chance: at 2 million vouchers one guess in 450 names one, so a
 * supplier who is told at once that a code is unknown could map codes by trying. Past
 * {@link UNKNOWN_CODES_PER_DAY} in a day the phone is told to try again tomorrow, whatever it
 * types: a person who mistypes makes the check digit catch it (not counted), and one who reads
 * ten real-looking wrong codes in a day is worth a look.
 */
export class UnknownCodeLimit {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    /** PIN_ENCRYPTION_KEY: the key names a digest of the phone, never the number. */
    private readonly secret: string,
  ) {}

  /** Whether the phone may still enter codes today. */
  async allowed(phone: string, now: Date): Promise<boolean> {
    const n = Number((await this.redis.get(this.keyOf(phone, now))) ?? 0);
    return n < UNKNOWN_CODES_PER_DAY;
  }

  /** Counts one unknown code. */
  async count(phone: string, now: Date): Promise<void> {
    const key = this.keyOf(phone, now);
    if ((await this.redis.incr(key)) === 1) await this.redis.pexpire(key, 25 * 3_600_000);
  }

  private keyOf(phone: string, now: Date): string {
    const digest = createHmac('sha256', this.secret).update(`hearth-ussd-codes:${phone}`).digest('hex').slice(0, 32);
    return ussdKeys.unknownCodes(this.keys, digest, Math.floor(now.getTime() / 86_400_000));
  }
}
