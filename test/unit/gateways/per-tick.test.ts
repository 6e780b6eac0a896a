import { describe, expect, it } from 'vitest';
import { perTick } from '../../../src/gateways/per-tick.js';

describe('perTick (calls of one event-loop turn carried out as one)', () => {
  it('runs the calls of one turn as one batch, in call order, answering each its own output', async () => {
    const batches: number[][] = [];
    const double = perTick((xs: number[]) => {
      batches.push(xs);
      return Promise.resolve(xs.map((x) => x * 2));
    });
    const first = await Promise.all([1, 2, 3].map((x) => double(x)));
    const second = await double(10);
    expect(first).toEqual([2, 4, 6]);
    expect(second).toBe(20);
    expect(batches).toEqual([[1, 2, 3], [10]]);
  });

  it('splits a turn past the batch limit', async () => {
    const sizes: number[] = [];
    const echo = perTick((xs: number[]) => {
      sizes.push(xs.length);
      return Promise.resolve(xs);
    }, 4);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((x) => echo(x)))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sizes).toEqual([4, 2]);
  });

  it('fails every call of a failed batch, and of a batch answered with the wrong count', async () => {
    const broken = perTick((): Promise<number[]> => Promise.reject(new Error('redis down')));
    const results = await Promise.allSettled([broken(1), broken(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const throwsAtOnce = perTick((): Promise<number[]> => {
      throw new Error('bad input');
    });
    expect((await Promise.allSettled([throwsAtOnce(1), throwsAtOnce(2)])).map((r) => r.status)).toEqual([
      'rejected',
      'rejected',
    ]);
    const notAList = perTick(() => Promise.resolve(undefined as unknown as number[]));
    await expect(notAList(1)).rejects.toThrow(/a batch of 1 got no list of answers/);
    const short = perTick(() => Promise.resolve([1]));
    await expect(Promise.all([short(1), short(2)])).rejects.toThrow(/a batch of 2 got 1 answers/);
  });
});
