import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { movableClock } from '../../../support/clock.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';
import { ussdKeys } from '../../../../src/gateways/ussd/ussd-keys.js';

const LIMITED = /^END Too many requests from your phone/;

describe('USSD: the per-phone rate limit and the live-session list under concurrent hops', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let ussd: ReturnType<typeof ussdClient>;
  let n = 0;
  const sid = () => `ATUid_live_${Date.now()}_${++n}`;
  const clock = movableClock();

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '5' }),
      env.log,
      { clock },
    );
    a = api(hearth.port, clock);
    ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const live = async (): Promise<Array<Record<string, unknown>>> => {
    const r = await a.call('GET', '/api/ussd/sessions', { key: adminKey });
    expect(r.status).toBe(200);
    return r.body.sessions as Array<Record<string, unknown>>;
  };

  /** The gateway records a hop just after its reply: waits for it before a test spoils the record. */
  const recorded = async (id: string): Promise<void> => {
    const listed = await eventually(live, (sessions) => sessions.some((x) => x.sessionId === id), 5_000, 5);
    expect(listed.some((x) => x.sessionId === id)).toBe(true);
  };

  it('lets a phone make exactly its allowance of requests, however many arrive at once', async () => {
    // The allowance is per calendar minute (on hearth's clock): start a second into the next one.
    clock.advance(61_000 - (clock().getTime() % 60_000));
    const phone = '+260970000501';
    // Twelve at once: they are counted together (one script per turn of the event loop).
    const answers = await Promise.all(Array.from({ length: 12 }, () => ussd.session(sid(), phone).start()));
    expect(answers.filter((x) => LIMITED.test(x))).toHaveLength(7);
    expect(answers.filter((x) => x.startsWith('CON Welcome to hearth'))).toHaveLength(5);
    expect(await ussd.session(sid(), phone).start()).toMatch(LIMITED);
    // Another phone has its own allowance.
    expect(await ussd.session(sid(), '+260970000502').start()).toMatch(/^CON Welcome to hearth/);
    // The counters' keys name no phone: not its digits, nor a plain hash one could enumerate.
    const minute = Math.floor(clock().getTime() / 60_000);
    const keys = await env.keysMatching(ussdKeys.rate(env.keys, 'PHONE', minute).replace(':PHONE:', ':*:'));
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const plain = createHash('sha256').update(phone).digest('hex').slice(0, 32);
    for (const key of keys) {
      expect(key).not.toContain('260970000501');
      expect(key).not.toContain(plain);
      // Every counter goes with its minute (and a second for clocks that differ).
      const ttl = await env.redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(61_000);
    }
  });

  it('lists sessions started at once, drops an ended one, and lets no other phone end it', async () => {
    const phones = ['+260970000511', '+260970000512', '+260970000513'];
    const ids = phones.map(() => sid());
    const sessions = phones.map((p, i) => ussd.session(ids[i]!, p));
    await Promise.all(sessions.map((s) => s.start()));
    const listed = (await live()).filter((x) => ids.includes(x.sessionId as string));
    expect(listed.map((x) => x.phoneNumber).sort()).toEqual(phones);

    // Another phone using the first session's id, saying "exit": refused, the session stays.
    const intruder = await ussd.post({
      sessionId: ids[0]!,
      phoneNumber: '+260970000519',
      serviceCode: '*1234#',
      text: '*',
    });
    expect(intruder.text).toMatch(/^END /);
    expect((await live()).some((x) => x.sessionId === ids[0])).toBe(true);

    // Two of them end in the same instant; the third goes on.
    await Promise.all([sessions[0]!.send('*'), sessions[1]!.send('*')]);
    const after = (await live()).filter((x) => ids.includes(x.sessionId as string));
    expect(after.map((x) => x.sessionId)).toEqual([ids[2]]);
  });

  it('ends a session whose stored summary is unreadable, and still answers the phone', async () => {
    const id = sid();
    const phone = ussd.session(id, '+260970000521');
    await phone.start();
    await recorded(id);
    await env.redis.hset(ussdKeys.summaries(env.keys, ussdKeys.shardOf(id)), id, '{not json');
    expect(await phone.send('*')).toBe('END Thank you for using hearth. Goodbye.');
    expect((await live()).some((x) => x.sessionId === id)).toBe(false);
  });

  it('lists the readable sessions, and counts them alike, when one stored summary is unreadable', async () => {
    const good = sid();
    const bad = sid();
    await ussd.session(good, '+260970000531').start();
    await ussd.session(bad, '+260970000532').start();
    await recorded(bad);
    await env.redis.hset(ussdKeys.summaries(env.keys, ussdKeys.shardOf(bad)), bad, '{not json');
    const r = await a.call('GET', '/api/ussd/sessions', { key: adminKey });
    expect(r.status).toBe(200);
    const ids = (r.body.sessions as Array<{ sessionId: string }>).map((x) => x.sessionId);
    expect(ids).toContain(good);
    expect(ids).not.toContain(bad);
    expect(r.body.count).toBe(ids.length);
  });

  it('forgets a session idle past the limit at the next list: gone from its shard, not only hidden', async () => {
    const id = sid();
    await ussd.session(id, '+260970000541').start();
    await recorded(id);
    const shard = ussdKeys.shardOf(id);
    clock.advance(181_000);
    expect((await live()).some((x) => x.sessionId === id)).toBe(false);
    expect(await env.redis.zscore(ussdKeys.live(env.keys, shard), id)).toBeNull();
    expect(await env.redis.hget(ussdKeys.summaries(env.keys, shard), id)).toBeNull();
  });

  it('lists sessions of every shard together, newest first, and counts them all', async () => {
    const ids = [sid(), sid(), sid(), sid(), sid(), sid()];
    // Sessions spread over the index's shards (by id): the list merges them by last activity.
    expect(new Set(ids.map((id) => ussdKeys.shardOf(id))).size).toBeGreaterThan(1);
    for (const [i, id] of ids.entries()) {
      clock.advance(1_000);
      await ussd.session(id, `+26097000060${i}`).start();
      await recorded(id);
    }
    const r = await a.call('GET', '/api/ussd/sessions', { key: adminKey });
    expect(r.status).toBe(200);
    const all = r.body.sessions as Array<{ sessionId: string }>;
    expect(all.map((x) => x.sessionId).filter((id) => ids.includes(id))).toEqual([...ids].reverse());
    expect(r.body.count).toBeGreaterThanOrEqual(ids.length);
    expect(r.body.count).toBe((r.body.sessions as unknown[]).length);
  });
});
