import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { fakeModel, slowWords, type FakeModel } from '../../../support/fake-model.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../../../support/processes.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

type Frame = { event: string; data: Record<string, unknown>; id?: string };
type User = Awaited<ReturnType<typeof ucanUser>>;

function parse(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('event: '))
    .map((f) => {
      const lines = f.split('\n');
      const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
      return {
        event: lines[0]!.slice(7),
        data: JSON.parse(lines[1]!.slice(6)) as Record<string, unknown>,
        ...(id ? { id } : {}),
      };
    });
}

const withoutIds = (frames: Frame[]) => frames.map(({ event, data }) => ({ event, data }));

describe('a turn streamed by one gateway process, followed and aborted from another', () => {
  let env: Isolated;
  let llm: FakeModel;
  let a: Hearth;
  let b: HearthProcess;
  let baseA = '';
  let baseB = '';
  let alice: User;
  let bob: User;
  let sessionId = '';

  beforeAll(async () => {
    // A slow model: 30 words, 40 ms apart, so a turn is still in flight while a second gateway joins.
    llm = await fakeModel(slowWords(30, 40));
    env = await isolated();
    const oracleDid = await oracleIdentity();
    a = await startHearth(env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, LLM_BASE_URL: llm.url }), env.log);
    b = spawnHearth(env.env({ ROLE: 'gateway', ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, LOG_LEVEL: 'info' }));
    baseA = `http://127.0.0.1:${a.port}`;
    baseB = `http://127.0.0.1:${Number((await b.waitFor((l) => l.msg === 'hearth listening')).port)}`;
    alice = await ucanUser(oracleDid);
    bob = await ucanUser(oracleDid);
    const res = await fetch(`${baseA}/sessions`, { method: 'POST', headers: await alice.headers() });
    sessionId = ((await res.json()) as { sessionId: string }).sessionId;
  });

  afterAll(async () => {
    await b.stop();
    await a.close();
    await env.cleanup();
    await llm.close();
  });

  const startTurn = async () =>
    fetch(`${baseA}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await alice.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Tell me something long', stream: true }),
    });

  const follow = async (user: User, extra: Record<string, string> = {}) =>
    fetch(`${baseB}/messages/${sessionId}/stream`, { headers: { ...(await user.headers()), ...extra } });

  /** The turn's events as Redis holds them, once at least `n` are there. */
  async function eventsInRedis(requestId: string, n: number): Promise<Array<[string, string[]]>> {
    const mine = await eventually(
      async () =>
        (await env.redis.xrange(chatKeys.events(env.keys, sessionId), '-', '+')).filter(([, f]) => f[1] === requestId),
      (events) => events.length >= n,
      10_000,
      20,
    );
    expect(mine.length).toBeGreaterThanOrEqual(n);
    return mine;
  }

  it('serves the same events on gateway B, from the start or after Last-Event-ID, then 204', async () => {
    const started = await startTurn();
    expect(started.status).toBe(200);
    const requestId = started.headers.get('x-request-id')!;
    const onA = started.text();

    const whole = await follow(alice);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('text/event-stream');
    // Resume after the fifth event of the turn, as an EventSource would after a dropped connection.
    const fifth = (await eventsInRedis(requestId, 5))[4]![0];
    const resumed = await follow(alice, { 'Last-Event-ID': fifth });

    const framesA = parse(await onA);
    const framesB = parse(await whole.text());
    const framesResumed = parse(await resumed.text());
    expect(framesA.map((f) => f.event)).toEqual(expect.arrayContaining(['reasoning', 'message', 'done']));
    expect(framesA.filter((f) => f.event === 'message')).toHaveLength(30);
    // B sends exactly what A sent, each frame with the id a client resumes from.
    expect(withoutIds(framesB)).toEqual(framesA);
    expect(framesB.every((f) => /^\d+-\d+$/.test(f.id ?? ''))).toBe(true);
    expect(framesB[4]!.id).toBe(fifth);
    expect(withoutIds(framesResumed)).toEqual(framesA.slice(5));

    // The turn is over: nothing to follow.
    const after = await follow(alice);
    expect(after.status).toBe(204);
  });

  it('keeps other users out of the stream (404) and needs a UCAN (401)', async () => {
    expect((await follow(bob)).status).toBe(404);
    expect((await fetch(`${baseB}/messages/${sessionId}/stream`)).status).toBe(401);
  });

  it('aborts from gateway B a turn streamed by gateway A: A ends early with done', async () => {
    const started = await startTurn();
    const requestId = started.headers.get('x-request-id')!;
    await eventsInRedis(requestId, 4);
    const abort = await fetch(`${baseB}/messages/abort`, {
      method: 'POST',
      headers: { ...(await alice.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId }),
    });
    expect(await abort.json()).toEqual({ success: true });
    const frames = parse(await started.text());
    expect(frames.at(-1)!.event).toBe('done');
    expect(frames.filter((f) => f.event === 'message').length).toBeLessThan(30);
    // An abort is not a failure: the model's body is cut off, the turn ends cleanly.
    expect(frames.some((f) => f.event === 'error')).toBe(false);
    // `done` seen, the session is free: the next message is taken at once (no 409).
    const next = await startTurn();
    expect(next.status).toBe(200);
    expect(parse(await next.text()).at(-1)!.event).toBe('done');
  });
});
