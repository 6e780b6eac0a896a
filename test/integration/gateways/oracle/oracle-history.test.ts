import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { fakeModel, type FakeModel, type ModelRequest } from '../../../support/fake-model.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

type Message = ModelRequest['messages'][number] & {
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};

/**
 * A model that answers with what it was sent: how many messages, and the roles in order. It
 * calls my_vouchers once when the newest user message asks for vouchers.
 */
async function echoingModel(): Promise<FakeModel & { requests: Message[][] }> {
  const requests: Message[][] = [];
  const model = await fakeModel((request, send) => {
    const messages = request.messages as Message[];
    requests.push(messages);
    const last = messages[messages.length - 1]!;
    if (last.role === 'user' && /vouchers/.test(last.content ?? '')) {
      send({
        tool_calls: [{ index: 0, id: `call_${requests.length}`, function: { name: 'my_vouchers', arguments: '{}' } }],
      });
      return;
    }
    send({ content: `I saw ${messages.length} messages: ${messages.map((m) => m.role).join(',')}` });
  });
  return { ...model, requests };
}

describe('oracle conversations remember earlier turns (history within a budget)', () => {
  let env: Isolated;
  let llm: Awaited<ReturnType<typeof echoingModel>>;
  let withModel: Hearth;
  let tight: Hearth;
  let embedded: Hearth;
  let oracleDid = '';
  let user: Awaited<ReturnType<typeof ucanUser>>;

  beforeAll(async () => {
    llm = await echoingModel();
    env = await isolated();
    oracleDid = await oracleIdentity();
    const base = { ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid };
    withModel = await startHearth(env.config({ ...base, LLM_BASE_URL: llm.url }), env.log);
    tight = await startHearth(
      env.config({ ...base, ROLE: 'gateway', LLM_BASE_URL: llm.url, ORACLE_HISTORY_CHARS: '60' }),
      env.log,
      { migrate: false },
    );
    embedded = await startHearth(env.config({ ...base, ROLE: 'gateway' }), env.log, { migrate: false });
    user = await ucanUser(oracleDid);
  });

  afterAll(async () => {
    await embedded.close();
    await tight.close();
    await withModel.close();
    await env.cleanup();
    await llm.close();
  });

  async function session(h: Hearth): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${h.port}/sessions`, { method: 'POST', headers: await user.headers() });
    return ((await res.json()) as { sessionId: string }).sessionId;
  }

  async function say(h: Hearth, sessionId: string, message: string): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${h.port}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { message: { content: string } }).message.content;
  }

  it('gives the model the whole conversation: user and assistant turns, tool calls and their results', async () => {
    const id = await session(withModel);
    const from = llm.requests.length;
    await say(withModel, id, 'My name is Zanele');
    await say(withModel, id, 'What is my name?');
    const second = llm.requests[from + 1]!;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second[1]!.content).toBe('My name is Zanele');
    expect(second[2]!.content).toBe('I saw 2 messages: system,user');
    expect(second[3]!.content).toBe('What is my name?');

    await say(withModel, id, 'Show my vouchers');
    await say(withModel, id, 'And now?');
    const last = llm.requests[llm.requests.length - 1]!;
    expect(last.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant', // the earlier turn's tool call…
      'tool', // …its result, as text…
      'assistant', // …and the answer that followed
      'user',
    ]);
    expect(last[6]!.tool_calls?.[0]).toMatchObject({ function: { name: 'my_vouchers', arguments: '{}' } });
    expect(last[7]).toMatchObject({ tool_call_id: last[6]!.tool_calls?.[0]?.id, content: '[]' });
    // The system prompt stays first and says nothing was left out.
    expect(last[0]!.content).not.toMatch(/not shown/);
  });

  it('leaves out the oldest turns past ORACLE_HISTORY_CHARS, keeping the system prompt and the new message', async () => {
    const id = await session(tight);
    await say(tight, id, 'My name is Zanele, and this first message is rather long to fill the budget');
    await say(tight, id, 'Second');
    await say(tight, id, 'Third');
    const last = llm.requests[llm.requests.length - 1]!;
    // Only the newest earlier turn fits in 60 characters.
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(last[1]!.content).toBe('Second');
    expect(last[0]!.content).toMatch(/The 2 earliest messages of this conversation are not shown\./);
    expect(last[3]!.content).toBe('Third');
  });

  it('lets the embedded agent (no model) answer from the conversation too', async () => {
    const id = await session(embedded);
    expect(await say(embedded, id, 'Hello, my name is Zanele')).toMatch(/Nice to meet you, Zanele/);
    expect(await say(embedded, id, 'What is my name?')).toBe('Your name is Zanele.');
    const other = await session(embedded);
    expect(await say(embedded, other, 'What is my name?')).toBe('You have not told me your name in this conversation.');
  });
});
