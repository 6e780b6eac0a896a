import type { RedisClient } from './redis.js';
import type { Keys } from './keys.js';
import type { LeaseTable } from '../../actors/runtime/ports.js';

// Heartbeat on Redis's clock, so workers on skewed hosts agree on who is alive. KEYS: the set of
// all live workers, then one set per actor type this worker runs; returns the members of each.
const heartbeatScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - tonumber(ARGV[2]))
  out[i] = redis.call('ZRANGE', key, 0, -1)
end
return out`;

const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Membership of live workers and the leases of the partitions they own, in Redis. */
export class RedisLeases implements LeaseTable {
  private readonly memberships: string[];

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly workerId: string,
    private readonly ttlMs: number,
    /** The actor types this worker runs. */
    private readonly types: readonly string[],
  ) {
    this.memberships = [keys.workers, ...types.map((t) => keys.typeWorkers(t))];
  }

  /**
   * Records this worker as alive, in the set of all workers and in each of its types' sets;
   * returns, per type it runs, the live workers that run that type (its own id included).
   */
  async heartbeat(): Promise<Map<string, string[]>> {
    const sets = (await this.redis.eval(
      heartbeatScript,
      this.memberships.length,
      ...this.memberships,
      this.workerId,
      this.ttlMs,
    )) as string[][];
    return new Map(this.types.map((t, i) => [t, sets[i + 1] ?? []]));
  }

  async leave(): Promise<void> {
    await Promise.all(this.memberships.map((key) => this.redis.zrem(key, this.workerId)));
  }

  /** True when this worker now holds the lease (it was free). */
  async acquire(type: string, partition: number): Promise<boolean> {
    const ok = await this.redis.set(this.keys.lease(type, partition), this.workerId, 'PX', this.ttlMs, 'NX');
    return ok === 'OK';
  }

  /** True when this worker still held the lease and extended it. */
  async renew(type: string, partition: number): Promise<boolean> {
    const n = await this.redis.eval(renewScript, 1, this.keys.lease(type, partition), this.workerId, this.ttlMs);
    return n === 1;
  }

  async release(type: string, partition: number): Promise<void> {
    await this.redis.eval(releaseScript, 1, this.keys.lease(type, partition), this.workerId);
  }
}
