import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { fakeModel, slowWords, type FakeModel } from '../../../support/fake-model.js';
import {
  askOracleStream,
  authHeaders,
  sdkListModels,
  sdkRequest,
  type SdkEvent,
} from '../../../support/ixo-sdk-wire.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

/**
 * What ixo's client SDK sends and expects, end to end: the models it lists and picks, and a
 * person who leaves mid-turn and comes back (a new message replaces a turn nobody reads).
 */
describe('oracle through the SDK: models, and turns a person comes back to', () => {
  let env: Isolated;
  let llm: FakeModel & { models: string[] };
  let hearth: Hearth;
  let api = '';
  let oracleDid = '';
  let user: Awaited<ReturnType<typeof ucanUser>>;

  beforeAll(async () => {
    const models: string[] = [];
    // 40 words, 50 ms apart: a turn lasts two seconds, long enough to leave in the middle.
    const words = slowWords(40, 50);
    const model = await fakeModel((request, send) => {
      models.push(String(request.model));
      return words(request, send);
    });
    llm = { ...model, models };
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'm-default',
        LLM_MODELS: 'm-default,m-large',
      }),
      env.log,
    );
    api = `http://127.0.0.1:${hearth.port}`;
    user = await ucanUser(oracleDid);
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
    await llm.close();
  });

  const headers = async () => authHeaders(await user.delegation(), await user.invocation());
  const newSession = async () =>
    (await sdkRequest<{ sessionId: string }>(`${api}/sessions`, 'POST', { headers: await headers() })).sessionId;

  it('lists the offered models without credentials, and uses the one a message names', async () => {
    const listed = await sdkListModels(api);
    expect(listed.defaultModelId).toBe('m-default');
    expect(listed.models.map((m) => [m.id, m.isDefault])).toEqual([
      ['m-default', true],
      ['m-large', false],
    ]);
    const sessionId = await newSession();
    const ask = async (model?: string) =>
      askOracleStream({
        apiURL: api,
        sessionId,
        message: 'hello',
        headers: await headers(),
        ...(model ? { model } : {}),
        onEvent: () => undefined,
      });
    const before = llm.models.length;
    await ask('m-large');
    await ask('not-offered'); // accepted (no 400), and the default answers
    await ask();
    expect(llm.models.slice(before)).toEqual(['m-large', 'm-default', 'm-default']);
  });

  it('lets a person who left mid-turn send again: the unread turn is replaced, not a 409', async () => {
    const sessionId = await newSession();
    const left = new AbortController();
    const seen: SdkEvent[] = [];
    // The page is left after the first words: the stream's connection closes.
    const first = askOracleStream({
      apiURL: api,
      sessionId,
      message: 'tell me a long story',
      headers: await headers(),
      signal: left.signal,
      onEvent: (e) => {
        seen.push(e);
        if (seen.filter((x) => x.event === 'message').length === 3) left.abort();
      },
    }).catch((err: unknown) => err);
    expect(await first).toBeInstanceOf(Error);
    // Back on the session: the next message is answered, to its done.
    const events: SdkEvent[] = [];
    const second = await askOracleStream({
      apiURL: api,
      sessionId,
      message: 'and now a short one',
      headers: await headers(),
      onEvent: (e) => void events.push(e),
    });
    expect(events.at(-1)?.event).toBe('done');
    expect(second.text).toMatch(/^w0 w1/);
    // The transcript: the first question, its answer cut short, then the second turn whole.
    const { messages } = await sdkRequest<{ messages: Array<{ type: string; content: string }> }>(
      `${api}/messages/${sessionId}`,
      'GET',
      { headers: await headers() },
    );
    expect(messages.map((m) => m.type)).toEqual(['human', 'ai', 'human', 'ai']);
    expect(messages[1]!.content.split(' ').length).toBeLessThan(40);
    expect(messages[2]!.content).toBe('and now a short one');
  }, 20_000);

  it('answers 409 while another client still reads the turn in flight', async () => {
    const sessionId = await newSession();
    let events = 0;
    const reading = askOracleStream({
      apiURL: api,
      sessionId,
      message: 'tell me a long story',
      headers: await headers(),
      onEvent: () => void events++,
    });
    // Wait until the turn is taken and read (its first event is here), then send from a second tab.
    expect(
      await eventually(
        () => Promise.resolve(events),
        (n) => n > 0,
        10_000,
        20,
      ),
    ).toBeGreaterThan(0);
    const second = await fetch(`${api}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await headers()), 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'me too', stream: true }),
    });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('CHAT_TURN_IN_FLIGHT');
    expect((await reading).text.split(' ').filter(Boolean)).toHaveLength(40);
  }, 20_000);
});
