import { createHmac } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { sendPerNode } from '../../store/redis/node-batch.js';
import { isCluster, type RedisClient } from '../../store/redis/redis.js';
import type { Keys } from '../../store/redis/keys.js';
import { perTick } from '../per-tick.js';
import { TtlCache } from '../../ttl-cache.js';
import { ussdKeys } from './ussd-keys.js';

/** Counts one request on each key (a key twice counts twice); returns each count after it. */
const COUNT = `local counts = {}
for i, key in ipairs(KEYS) do
  local c = redis.call('INCR', key)
  if c == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = c
end
return counts`;

/** How long a minute's counter lives: its minute, and a second for gateways' clocks to differ. */
const COUNTER_TTL_MS = 61_000;

/**
 * Requests per phone number per minute. Never by IP: an aggregator sends everyone's sessions
 * from the same few addresses. One INCR per request (with the key's expiry set on its first),
 * in a script (a MULTI block is written on its own, measured at ~130 µs of the gateway's event
 * loop per hop here) that counts all the requests of one turn of the event loop at once.
 *
 * On a Redis Cluster every phone's counter is in a slot of its own, so a turn's script would be
 * a call per phone: about one per hop, each an ioredis command (~10 µs of the gateway) and a Lua
 * call in Redis. There the turn's counters go as plain commands instead, in one write per node
 * (node-batch.ts): per phone, `INCR key` and `PEXPIRE key 61000 NX` (its expiry, if it has none).
 */
export class PhoneRateLimit {
  /** Phone → key digest: the same few thousand phones come back hop after hop. */
  private readonly digests = new TtlCache<string, string>({ maxEntries: 50_000 });
  private readonly count = perTick(async (keys: string[]) =>
    isCluster(this.redis)
      ? countOnNodes(this.redis, keys)
      : ((await this.redis.eval(COUNT, keys.length, ...keys, COUNTER_TTL_MS)) as number[]),
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
    const key = ussdKeys.rate(this.keys, digest, Math.floor(now.getTime() / 60_000));
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

/**
 * Counts on a cluster, without a script: INCR counts (and makes a minute's counter), and
 * `PEXPIRE … NX` gives it its expiry if it has none, so a counter INCR made anew (even one that
 * expired a moment before, with gateways' clocks apart) never stays. Sent together on one
 * connection, Redis runs them back to back. `NX` needs Redis 7.0, as the cluster path's bells do.
 */
async function countOnNodes(cluster: Cluster, keys: readonly string[]): Promise<number[]> {
  const answers = await Promise.all(
    sendPerNode(
      cluster,
      keys.flatMap((key) => [
        { key, name: 'incr', args: [key] },
        { key, name: 'pexpire', args: [key, COUNTER_TTL_MS, 'NX'] },
      ]),
    ),
  );
  return keys.map((_, i) => answers[2 * i] as number);
}
