import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';

// Heartbeat on Redis's clock, so workers on skewed hosts agree on who is alive.
const heartbeatScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Membership of live workers and the leases of the partitions they own. */
export class Leases {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly workerId: string,
    private readonly ttlMs: number,
  ) {}

  /** Records this worker as alive; returns every live worker (its own id included). */
  async heartbeat(): Promise<string[]> {
    return (await this.redis.eval(heartbeatScript, 1, this.keys.workers, this.workerId, this.ttlMs)) as string[];
  }

  async leave(): Promise<void> {
    await this.redis.zrem(this.keys.workers, this.workerId);
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
