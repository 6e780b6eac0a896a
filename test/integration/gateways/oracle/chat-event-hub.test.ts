import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../../src/store/redis/redis.js';
import { ChatEventHub, emitChatEvent, type ChatEvent } from '../../../../src/gateways/oracle/agent/chat-events.js';
import { keepReading, releaseTurn, takeTurn } from '../../../../src/gateways/oracle/agent/turn-mark.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

/** Resolves once `seen` holds `n` events (or fails after 5 s). */
async function until(seen: ChatEvent[], n: number): Promise<void> {
  const got = await eventually(
    () => Promise.resolve(seen.length),
    (k) => k >= n,
    5_000,
    20,
  );
  if (got < n) throw new Error(`only ${got} of ${n} events`);
}

describe('chat event hub: each listener gets exactly the events after its own `from`', () => {
  let env: Isolated;
  let hub: ChatEventHub;

  beforeAll(async () => {
    env = await isolated();
    hub = new ChatEventHub(
      (name) => createRedis(env.redisUrl, `test-${name}`, { blocking: true }),
      env.keys,
      env.log,
      env.cluster,
    );
  });

  afterAll(async () => {
    await hub.close();
    await env.cleanup();
  });

  const emit = async (session: string, n: number) => {
    await emitChatEvent(env.redis, env.keys, session, 'req', 'message', { n });
    const [last] = await env.redis.xrevrange(chatKeys.events(env.keys, session), '+', '-', 'COUNT', 1);
    return last![0];
  };
  const numbers = (seen: ChatEvent[]) => seen.map((e) => e.data.n);

  it('hands a late listener what the shared cursor had passed, and nobody anything twice', async () => {
    const a: ChatEvent[] = [];
    const stopA = hub.follow('s1', '0', (e) => a.push(e));
    const first = await emit('s1', 1);
    await emit('s1', 2);
    const third = await emit('s1', 3);
    await until(a, 3);
    // B joins behind the hub's cursor (after event 1), C at its head (after event 3).
    const b: ChatEvent[] = [];
    const c: ChatEvent[] = [];
    const stopB = hub.follow('s1', first, (e) => b.push(e));
    const stopC = hub.follow('s1', third, (e) => c.push(e));
    await emit('s1', 4);
    await until(b, 3);
    await until(c, 1);
    // A sleep, not a wait for something: room for a duplicate, which must not come.
    await new Promise((r) => setTimeout(r, 300));
    expect(numbers(a)).toEqual([1, 2, 3, 4]);
    expect(numbers(b)).toEqual([2, 3, 4]);
    expect(numbers(c)).toEqual([4]);
    stopA();
    stopB();
    stopC();
  });

  it('keeps listeners of other sessions apart, and stops delivering after unsubscribe', async () => {
    const x: ChatEvent[] = [];
    const y: ChatEvent[] = [];
    const stopX = hub.follow('s2', '0', (e) => x.push(e));
    const stopY = hub.follow('s3', '0', (e) => y.push(e));
    await emit('s2', 1);
    await emit('s3', 9);
    await until(x, 1);
    await until(y, 1);
    stopX();
    await emit('s2', 2);
    await emit('s3', 10);
    await until(y, 2);
    // A sleep: s2's event is on another stream than s3's, so y's proves nothing; room for x's to come.
    await new Promise((r) => setTimeout(r, 200));
    expect(numbers(x)).toEqual([1]);
    expect(numbers(y)).toEqual([9, 10]);
    stopY();
  });
});

describe('turn marks: one turn per session, cleared only by the turn that holds it', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  const take = async (session: string, turn: string, reader = `r-${turn}`) =>
    (await takeTurn(env.redis, env.keys, session, turn, reader)).took;

  it("does not let a lapsed turn clear the next turn's mark", async () => {
    expect(await take('sess', 'turn-a')).toBe('ok');
    expect(await take('sess', 'turn-b')).toBe('busy'); // A's taker reads it
    // Turn A's mark lapses (a crashed gateway, a turn past its time) and B takes the session.
    await env.redis.del(chatKeys.turn(env.keys, 'sess'));
    expect(await take('sess', 'turn-b')).toBe('ok');
    await releaseTurn(env.redis, env.keys, 'sess', 'turn-a'); // A finishes late
    expect(await env.redis.get(chatKeys.turn(env.keys, 'sess'))).toBe('turn-b');
    await releaseTurn(env.redis, env.keys, 'sess', 'turn-b');
    expect(await env.redis.exists(chatKeys.turn(env.keys, 'sess'))).toBe(0);
    // An id names one turn of a session: used again, it is refused (in another session it is fine).
    expect(await take('sess', 'turn-a')).toBe('reused');
    expect(await take('other', 'turn-a')).toBe('ok');
  });

  it('replaces a turn in flight once no client reads it, and names the turn it displaced', async () => {
    expect(await take('s2', 'first')).toBe('ok');
    const stop = keepReading(env.redis, env.keys, { sessionId: 's2', requestId: 'first' }, 'tab-2');
    // The taker's own mark goes; another tab still reads: busy.
    await env.redis.zrem(chatKeys.turnReaders(env.keys, 's2', 'first'), 'r-first');
    await eventually(
      () => env.redis.zcard(chatKeys.turnReaders(env.keys, 's2', 'first')),
      (n) => n === 1,
    );
    expect(await take('s2', 'second')).toBe('busy');
    stop();
    await eventually(
      () => env.redis.zcard(chatKeys.turnReaders(env.keys, 's2', 'first')),
      (n) => n === 0,
    );
    expect(await takeTurn(env.redis, env.keys, 's2', 'third', 'r-third')).toEqual({
      took: 'replaced',
      displaced: 'first',
    });
    expect(await env.redis.get(chatKeys.turn(env.keys, 's2'))).toBe('third');
    // A reader whose gateway died lapses by its score, without a removal.
    await env.redis.zadd(chatKeys.turnReaders(env.keys, 's2', 'third'), Date.now() - 1, 'r-third');
    expect((await takeTurn(env.redis, env.keys, 's2', 'fourth', 'r-4')).took).toBe('replaced');
  });
});
