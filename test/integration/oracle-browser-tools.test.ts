import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../src/hearth.js';
import { isolated, type Isolated } from '../support/isolated.js';
import { oracleIdentity, ucanUser } from '../support/ucan-tokens.js';

/** A model that calls the client's `read_page` browser tool, then answers from its result. */
function model(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { messages } = JSON.parse(body) as { messages: Array<{ role: string; content: string | null }> };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta: unknown) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
      const result = messages.find((m) => m.role === 'tool');
      if (!result) {
        send({
          tool_calls: [{ index: 0, id: 'call_page', function: { name: 'read_page', arguments: '{"selector":"h1"}' } }],
        });
      } else {
        send({ content: `The page says ${result.content}` });
      }
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  );
}

describe('browser tools: the model calls a tool the client declared, the browser answers over socket.io', () => {
  let env: Isolated;
  let hearth: Hearth;
  let llm: Awaited<ReturnType<typeof model>>;
  let socket: Socket | undefined;
  let oracleDid = '';

  beforeAll(async () => {
    llm = await model();
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({ ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, LLM_BASE_URL: llm.url }),
      env.log,
    );
  });

  afterAll(async () => {
    socket?.disconnect();
    await hearth.close();
    await env.cleanup();
    await new Promise((resolve) => llm.server.close(resolve));
  });

  it('sends browser_tool_call to the session room and feeds the tool_result back to the model', async () => {
    const user = await ucanUser(oracleDid);
    const base = `http://127.0.0.1:${hearth.port}`;
    const { sessionId } = (await (
      await fetch(`${base}/sessions`, { method: 'POST', headers: await user.headers() })
    ).json()) as {
      sessionId: string;
    };
    socket = connect(base, {
      path: '/socket.io',
      transports: ['websocket'],
      query: { sessionId },
      auth: { invocation: await user.invocation() },
      reconnection: false,
    });
    await new Promise((resolve) => socket!.once('connected', resolve));
    socket.on('browser_tool_call', (call: { toolCallId: string; toolName: string; args: { selector: string } }) => {
      expect(call).toMatchObject({ toolName: 'read_page', args: { selector: 'h1' }, sessionId });
      socket!.emit('tool_result', { toolCallId: call.toolCallId, sessionId, result: { text: 'Clean stoves' } });
    });
    const res = await fetch(`${base}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await user.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({
        message: 'What does the page say?',
        tools: [{ name: 'read_page', description: 'Reads the page', schema: { type: 'object' } }],
      }),
    });
    const body = (await res.json()) as { message: { content: string } };
    expect(body.message.content).toBe('The page says {"text":"Clean stoves"}');
  });
});
