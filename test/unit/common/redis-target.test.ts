import { describe, expect, it } from 'vitest';
import { parseRedisTarget, redactRedisUrl, redisUrlProblem } from '../../../src/common/redis-target.js';
import { loadConfig } from '../../../src/config.js';

describe('REDIS_URL: one Redis or a Redis Cluster', () => {
  it('reads a cluster by its seed nodes, with credentials and TLS', () => {
    expect(parseRedisTarget('redis+cluster://10.0.0.1:6379,10.0.0.2:7000')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 6379 },
        { host: '10.0.0.2', port: 7000 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisTarget('rediss+cluster://app:s%40cret@redis-a.internal:6380,[::1]:6381')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'redis-a.internal', port: 6380 },
        { host: '::1', port: 6381 },
      ],
      username: 'app',
      password: 's@cret',
      tls: true,
    });
    expect(parseRedisTarget('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
  });

  it('says what is wrong with a bad one, and the config refuses it', () => {
    expect(redisUrlProblem('redis+cluster://10.0.0.1')).toMatch(/"10.0.0.1" is not host:port/);
    expect(redisUrlProblem('redis+cluster://a:1,b:70000')).toMatch(/"b:70000" is not host:port/);
    expect(redisUrlProblem('http://x')).toMatch(/must start with redis:\/\//);
    expect(redisUrlProblem('redis+cluster://a:1,b:2')).toBeUndefined();
    const base = { DATABASE_URL: 'postgres://x@y/z', LOG_LEVEL: 'info', PIN_ENCRYPTION_KEY: 'a'.repeat(32) };
    expect(() => loadConfig({ ...base, REDIS_URL: 'redis+cluster://nohost' })).toThrow(/REDIS_URL/);
    expect(loadConfig({ ...base, REDIS_URL: 'redis+cluster://a:1,b:2' }).REDIS_URL).toBe('redis+cluster://a:1,b:2');
  });

  it('hides the password of either kind before it is printed', () => {
    expect(redactRedisUrl('redis+cluster://app:secret@a:1,b:2')).toBe('redis+cluster://app:***@a:1,b:2');
    expect(redactRedisUrl('redis://:secret@h:6379/0')).toBe('redis://:***@h:6379/0');
    expect(redactRedisUrl('redis://h:6379')).toBe('redis://h:6379');
  });
});
