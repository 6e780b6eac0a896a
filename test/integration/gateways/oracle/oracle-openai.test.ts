import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { openAiAgent } from '../../../../src/gateways/oracle/agent/openai-agent.js';
import { fakeModel, type FakeModel } from '../../../support/fake-model.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity, ucanUser } from '../../../support/ucan-tokens.js';

/**
 * A local server speaking the OpenAI chat-completions streaming protocol: the first call asks
 * for the my_vouchers tool, the second answers from the tool's result in three chunks.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads arbitrary request JSON
type Json = Record<string, any>;

async function fakeLlm(): Promise<FakeModel & { requests: Json[] }> {
  const requests: Json[] = [];
  const model = await fakeModel((request, send, http) => {
    requests.push({ ...request, authorization: http.headers.authorization });
    const toolResult = request.messages.find((m) => m.role === 'tool');
    if (!toolResult) {
      send({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'my_vouchers', arguments: '' } }],
      });
      send({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] });
    } else {
      const vouchers = JSON.parse(toolResult.content ?? '[]') as unknown[];
      for (const piece of ['You have ', String(vouchers.length), ' vouchers.']) send({ content: piece });
    }
  });
  return { ...model, requests };
}

describe('oracle with an OpenAI-compatible provider (LLM_BASE_URL)', () => {
  let env: Isolated;
  let hearth: Hearth;
  let llm: Awaited<ReturnType<typeof fakeLlm>>;
  let oracleDid = '';

  beforeAll(async () => {
    llm = await fakeLlm();
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({
        ACTOR_PARTITIONS: '2',
        ORACLE_DID: oracleDid,
        LLM_BASE_URL: llm.url,
        LLM_API_KEY: 'sk-test',
        LLM_MODEL: 'm1',
      }),
      env.log,
    );
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
    await llm.close();
  });

  it('streams the model, runs the tool it asks for as the caller, and feeds the result back', async () => {
    const user = await ucanUser(oracleDid);
    const base = `http://127.0.0.1:${hearth.port}`;
    const session = (await (
      await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() })
    ).json()) as {
      sessionId: string;
    };
    const res = await fetch(`${base}/messages/${session.sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How many vouchers do I have?', stream: true, timezone: 'Africa/Lusaka' }),
    });
    const text = await res.text();
    const events = text
      .split('\n\n')
      .filter((f) => f.startsWith('event: '))
      .map((f) => f.split('\n')[0]!.slice(7));
    expect(events).toEqual([
      'reasoning',
      'router.update',
      'tool_call',
      'tool_call',
      'render_component',
      'message',
      'message',
      'message',
      'message_cache_invalidation',
      'reasoning',
      'done',
    ]);
    expect(text).toContain('"step":"my_vouchers"');
    expect(text).toContain('"componentName":"VoucherList","args":{"my_vouchers":[]},"status":"done"');
    expect(text).toContain('"toolName":"my_vouchers","args":{},"status":"done","eventId":"call_1","output":"[]"');
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0]).toMatchObject({ model: 'm1', stream: true, authorization: 'Bearer sk-test' });
    expect(llm.requests[0]!.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'my_vouchers',
      'open_surveys',
    ]);
    expect(llm.requests[0]!.messages[0].content).toContain('Africa/Lusaka');
    expect(llm.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '[]' });
    const transcript = (await (
      await fetch(`${base}/messages/${session.sessionId}`, { headers: await user.headers() })
    ).json()) as {
      messages: Array<{ type: string; content: string }>;
    };
    expect(transcript.messages.map((m) => m.content)).toEqual(['How many vouchers do I have?', 'You have 0 vouchers.']);
  });
  it('tells the model what the user attached (names, types, references), not as if nothing came', async () => {
    const user = await ucanUser(oracleDid);
    const base = `http://127.0.0.1:${hearth.port}`;
    const created = await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() });
    const { sessionId } = (await created.json()) as { sessionId: string };
    const before = llm.requests.length;
    const res = await fetch(`${base}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({
        message: 'Is this receipt fine?',
        attachments: [
          { mxcUri: 'mxc://matrix.example/abc', filename: 'receipt.pdf', mimetype: 'application/pdf' },
          { eventId: '$evt1', filename: 'stove.jpg', mimetype: 'image/jpeg' },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const prompt = llm.requests[before]!.messages.find((m: { role: string }) => m.role === 'user').content as string;
    expect(prompt).toMatch(/^Is this receipt fine\?\n\n\[The user attached/);
    expect(prompt).toContain('- receipt.pdf (application/pdf) mxc://matrix.example/abc');
    expect(prompt).toContain('- stove.jpg (image/jpeg) $evt1');
    // The transcript keeps what the user typed.
    const transcript = await fetch(`${base}/messages/${sessionId}`, { headers: await user.headers() });
    const { messages } = (await transcript.json()) as { messages: Array<{ type: string; content: string }> };
    expect(messages.find((m) => m.type === 'human')?.content).toBe('Is this receipt fine?');
  });

  it("tells the client what a provider's refusal means: the SSE error's kind and retryable", async () => {
    // A provider that refuses every call with `status`.
    let status = 429;
    let retryAfter: string | undefined;
    const provider = createServer((req, res) => {
      req.resume();
      res
        .writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) })
        .end('{"error":{"message":"no"}}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    const other = await startHearth(
      env.config({ ROLE: 'gateway', ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, LLM_BASE_URL: url }),
      env.log,
      { migrate: false },
    );
    try {
      const user = await ucanUser(oracleDid);
      const base = `http://127.0.0.1:${other.port}`;
      /** A message in a new session, streamed or not. */
      const ask = async (stream: boolean): Promise<Response> => {
        const created = await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() });
        const { sessionId } = (await created.json()) as { sessionId: string };
        return fetch(`${base}/messages/${sessionId}`, {
          method: 'POST',
          headers: { ...(await user.headers()), 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hi', ...(stream ? { stream } : {}) }),
        });
      };
      const errorOf = async (): Promise<Record<string, unknown>> => {
        const frame = (await (await ask(true)).text()).split('\n\n').find((f) => f.startsWith('event: error'));
        return JSON.parse(frame!.split('\n')[1]!.slice(6)) as Record<string, unknown>;
      };
      for (const [code, kind, retryable, errorCode] of [
        [429, 'rate_limit', true, 'MODEL_RATE_LIMITED'],
        [402, 'billing', false, 'MODEL_UNAVAILABLE'],
        [401, 'auth', false, 'MODEL_UNAVAILABLE'],
        [503, 'server', true, 'MODEL_UNAVAILABLE'],
      ] as const) {
        status = code;
        expect(await errorOf(), String(code)).toMatchObject({ kind, retryable, code: errorCode });
      }
      // Without streaming, the same classification as an HTTP answer with the error body: the
      // provider's 429 is the client's 429 (its Retry-After passed on), the others a 502.
      const jsonAnswer = async () => {
        const res = await ask(false);
        return {
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          body: (await res.json()) as Record<string, unknown>,
        };
      };
      status = 429;
      retryAfter = '7';
      expect(await jsonAnswer()).toMatchObject({
        status: 429,
        retryAfter: '7',
        body: {
          statusCode: 429,
          error: { code: 'MODEL_RATE_LIMITED', details: { kind: 'rate_limit', retryable: true } },
        },
      });
      retryAfter = undefined;
      status = 401;
      expect(await jsonAnswer()).toMatchObject({
        status: 502,
        retryAfter: null,
        body: { statusCode: 502, error: { code: 'MODEL_UNAVAILABLE', details: { kind: 'auth', retryable: false } } },
      });
      // Nobody listening at all: the network, with a code and message of its own (not a store's).
      provider.closeAllConnections();
      await new Promise((resolve) => provider.close(resolve));
      expect(await errorOf()).toMatchObject({
        kind: 'network',
        retryable: true,
        code: 'MODEL_UNAVAILABLE',
        error: 'the language model cannot be reached (ECONNREFUSED)',
      });
      // Without streaming: 502 MODEL_UNAVAILABLE, to be retried.
      const res = await ask(false);
      expect(res.status).toBe(502);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({
        statusCode: 502,
        error: {
          code: 'MODEL_UNAVAILABLE',
          message: 'the language model cannot be reached (ECONNREFUSED)',
          details: { kind: 'network', retryable: true },
        },
      });
    } finally {
      await other.close();
      provider.close();
    }
  });
});

describe('OpenAI-compatible provider that goes silent', () => {
  it('gives up after its idle timeout instead of holding the turn open', async () => {
    // Headers and one chunk, then nothing: a stalled provider.
    const silent = await fakeModel((_request, send) => {
      send({ content: 'Hel' });
      return new Promise<void>(() => undefined);
    });
    const url = silent.url;
    const agent = openAiAgent({ baseUrl: url, model: 'm', tools: [], idleTimeoutMs: 300 });
    const tokens: string[] = [];
    const sink = {
      token: (t: string) => Promise.resolve(void tokens.push(t)),
      toolCall: () => Promise.resolve(),
      browserTool: () => Promise.resolve(undefined),
      action: () => Promise.resolve({ status: 'done' as const, output: undefined }),
      render: () => Promise.resolve(),
      route: () => Promise.resolve(),
      toolFailed: () => undefined,
    };
    const started = Date.now();
    const turn = {
      sessionId: 's',
      requestId: 'r',
      did: 'did:key:z',
      message: 'hi',
      signal: new AbortController().signal,
    };
    await expect(agent.run(turn, sink)).rejects.toMatchObject({
      message: 'the language model sent nothing for 0.3 s',
      kind: 'timeout',
      retryable: true,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(tokens).toEqual(['Hel']);
    await silent.close();
  });
});
