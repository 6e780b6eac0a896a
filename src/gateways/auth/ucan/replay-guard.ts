/**
 * Single use of invocations. The reference runtime let an invocation be replayed until it
 * expired; hearth remembers every accepted one until its expiry, in Redis so that all processes
 * share the memory.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../../store/redis/redis.js';
import type { UcanAuthOptions } from './types.js';

type SeenNonce = UcanAuthOptions['seenNonce'];

/** `SET key 1 NX EX ttl`: OK the first time, null while the key lives. Keys are hashed: nonces are client text. */
export function redisNonceGuard(redis: RedisClient, prefix: string): SeenNonce {
  return async (nonceKey, ttlSeconds) => {
    const digest = createHash('sha256').update(nonceKey).digest('hex');
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const set = await redis.set(`${prefix}:ucan:nonce:${digest}`, '1', 'EX', ttl, 'NX');
    return set === 'OK';
  };
}

/** One process's memory of nonces: for tests and single-process development, not for deployments. */
export function memoryNonceGuard(now: () => number = Date.now): SeenNonce {
  const expiresAt = new Map<string, number>();
  return (nonceKey, ttlSeconds) => {
    const t = now();
    for (const [key, until] of expiresAt) if (until <= t) expiresAt.delete(key);
    if (expiresAt.has(nonceKey)) return Promise.resolve(false);
    expiresAt.set(nonceKey, t + Math.max(1, Math.ceil(ttlSeconds)) * 1000);
    return Promise.resolve(true);
  };
}
