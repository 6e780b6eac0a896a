import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postEachOnce } from '../../../../src/store/redis/post-once.js';
import { isCluster } from '../../../../src/store/redis/redis.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

/**
 * A commit's tells posted together (post-once.ts): in their order, each once while its mark
 * lives, and again after Redis forgot the script. Real Redis (one, or a cluster where the posts
 * go one by one to their nodes).
 */
describe('postEachOnce', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  const post = (n: number, mark: string) => ({
    stream: env.keys.mailbox('counter', n),
    mark: env.keys.told('counter', n, mark),
    fields: ['key', `k-${mark}`, 'n', mark],
  });
  const entries = async (n: number) =>
    (await env.redis.xrange(env.keys.mailbox('counter', n), '-', '+')).map(([, f]) => f[3]);

  it('adds each entry in order, and none again while its mark lives', async () => {
    const first = await postEachOnce(env.redis, [post(0, 'a'), post(1, 'b'), post(0, 'c')], 60);
    expect(first.every((id) => /^\d+-\d+$/.test(id ?? ''))).toBe(true);
    const again = await postEachOnce(env.redis, [post(0, 'a'), post(0, 'd'), post(1, 'b')], 60);
    expect(again[0]).toBeNull();
    expect(again[1]).toMatch(/^\d+-\d+$/);
    expect(again[2]).toBeNull();
    expect(await entries(0)).toEqual(['a', 'c', 'd']);
    expect(await entries(1)).toEqual(['b']);
  });

  it('posts after Redis forgot its script (SCRIPT FLUSH)', async () => {
    if (isCluster(env.redis)) return; // SCRIPT FLUSH reaches one node of a cluster
    await env.redis.script('FLUSH');
    const [id] = await postEachOnce(env.redis, [post(2, 'e')], 60);
    expect(id).toMatch(/^\d+-\d+$/);
    expect(await entries(2)).toEqual(['e']);
  });
});
