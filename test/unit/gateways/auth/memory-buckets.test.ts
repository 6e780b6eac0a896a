import { describe, expect, it } from 'vitest';
import { memoryBuckets } from '../../../../src/gateways/auth/memory-buckets.js';

describe('memoryBuckets', () => {
  it('lets a burst through, then answers the wait; a peek counts nothing, a charge counts anyway', async () => {
    let now = 1_000_000;
    const take = memoryBuckets(() => now);
    const check = (mode: 'take' | 'peek' | 'charge') => take({ key: 'k', interval: 1_000, burst: 3, mode });
    expect(await check('peek')).toBe(0);
    expect([await check('take'), await check('take'), await check('take')]).toEqual([0, 0, 0]);
    expect(await check('take')).toBe(1_000);
    expect(await check('peek')).toBe(1_000);
    now += 1_000;
    expect(await check('take')).toBe(0);
    expect(await check('take')).toBe(1_000);
    // A charge counts however full; never more than one allowance ahead.
    for (let i = 0; i < 10; i++) await check('charge');
    expect(await check('peek')).toBe(1_000);
    now += 3_000;
    expect(await check('take')).toBe(0);
  });
});
