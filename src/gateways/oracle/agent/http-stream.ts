import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ModelError, modelConnectionError } from './model-error.js';

/** A model silent this long (no headers, no next chunk) is given up on, and the turn with it. */
const MODEL_IDLE_TIMEOUT_MS = 120_000;

/** Connections to the model stay open between turns (one per turn in flight, reused after). */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * POSTs a JSON body and hands back the streamed response, on node:http rather than fetch: with
 * 1,000 turns starting at once, undici's fetch and web streams took ~1.5 ms of the event loop
 * per call (measured), ahead of every first token.
 */
export function postForStream(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  idleTimeoutMs = MODEL_IDLE_TIMEOUT_MS,
): Promise<IncomingMessage> {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let response: IncomingMessage | undefined;
    const req = send(
      u,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        signal,
      },
      (res) => {
        response = res;
        resolve(res);
      },
    );
    req.on('error', (err) => reject(modelConnectionError(err)));
    // Covers the wait for headers and every gap between body chunks (the socket's idle time);
    // the reader of the body sees this reason, not a bare "aborted".
    req.setTimeout(idleTimeoutMs, () => {
      const err = new ModelError(`the language model sent nothing for ${idleTimeoutMs / 1000} s`, 'timeout', true);
      response?.destroy(err);
      req.destroy(err);
    });
    req.end(body);
  });
}
