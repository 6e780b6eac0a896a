// Also used by the tests (test/support/fake-model.ts).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a chat-completions request carries (the parts the fakes look at). */
export interface ModelRequest {
  model?: string;
  messages: Array<{ role: string; content: string | null }>;
  tools?: Array<{ function: { name: string } }>;
  stream?: boolean;
}

/** Writes one streamed delta (`data: {"choices":[{"index":0,"delta":…}]}`). */
export type SendDelta = (delta: unknown) => void;

export interface FakeModel {
  server: Server;
  /** The base URL to give LLM_BASE_URL (`…/v1`). */
  url: string;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 that streams what `answer` sends;
 * the response ends with `data: [DONE]` once `answer` settles (one that never settles stalls it).
 */
export function fakeModel(
  answer: (request: ModelRequest, send: SendDelta, http: IncomingMessage) => void | Promise<void>,
): Promise<FakeModel> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send: SendDelta = (delta) => {
        if (!res.destroyed) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
      };
      void Promise.resolve(answer(JSON.parse(body || '{}') as ModelRequest, send, req)).then(() => {
        if (!res.destroyed) res.end('data: [DONE]\n\n');
      });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** An answer of `count` words (`<prefix>0 `, `<prefix>1 `…), `gapMs` apart. */
export function slowWords(
  count: number,
  gapMs: number,
  prefix = 'w',
): (r: ModelRequest, send: SendDelta) => Promise<void> {
  return async (_request, send) => {
    for (let n = 0; n < count; n++) {
      await new Promise((r) => setTimeout(r, gapMs));
      send({ content: `${prefix}${n} ` });
    }
  };
}
