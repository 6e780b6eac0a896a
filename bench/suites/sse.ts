import { Agent, request } from 'node:http';
import type { BenchEnv } from '../lib/env.js';
import { fakeModel, slowWords } from '../lib/fake-model.js';
import { startGateway } from '../lib/gateway.js';
import { percentileOf, rssKb } from '../lib/measure.js';
import { oracleIdentity, ucanUser } from '../lib/ucan.js';

export interface SseResult {
  streams: number;
  /** Streams that got their first token while all were open. */
  opened: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  /** The same model called directly, at the same concurrency: the baseline. */
  directTtftP50Ms: number;
  directTtftP99Ms: number;
  kbPerStream: number;
  errors: number;
}

const TOKENS = 20;
const TOKEN_GAP_MS = 250;

/** POSTs and reads an SSE (or plain streamed) body; resolves the time to the first chunk that matches. */
function streamOnce(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
  first: RegExp,
  onFirst: () => void,
): Promise<number> {
  const started = performance.now();
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let ttft = -1;
    let seen = '';
    const req = request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (ttft >= 0) return;
          seen += chunk;
          if (first.test(seen)) {
            ttft = performance.now() - started;
            onFirst();
          }
        });
        res.on('end', () => (ttft >= 0 ? resolve(ttft) : reject(new Error('no token'))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * SSE streams held open at once through a gateway process (the agent is an OpenAI-compatible
 * model that takes ~5 s per answer), with the gateway's memory per open stream and the time to
 * the first token, against the same model called directly at the same concurrency.
 */
export async function sseStreams(env: BenchEnv, streams: number): Promise<SseResult> {
  // A model that talks slowly: 20 tokens, 250 ms apart (streams stay open ~5 s).
  const model = await fakeModel(slowWords(TOKENS, TOKEN_GAP_MS, 't'));
  const oracleDid = await oracleIdentity();
  const gateway = await startGateway(env, {
    ORACLE_DID: oracleDid,
    LLM_BASE_URL: model.url,
    ASK_MAX_IN_FLIGHT: '100000',
  });
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  try {
    const user = await ucanUser(oracleDid);
    const sessions: string[] = [];
    for (let i = 0; i < streams; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, streams - i) }, async () => {
          const res = await fetch(`${gateway.base}/sessions`, { method: 'POST', headers: await user.headers() });
          return ((await res.json()) as { sessionId: string }).sessionId;
        }),
      );
      sessions.push(...batch);
    }
    const headersFor = await Promise.all(sessions.map(() => user.headers()));

    const direct: number[] = [];
    await Promise.all(
      sessions.map(() =>
        streamOnce(agent, `${model.url}/chat/completions`, {}, '{}', /"content"/, () => undefined).then((t) =>
          direct.push(t),
        ),
      ),
    );

    const before = rssKb(gateway.pid);
    let opened = 0;
    let peak = before;
    const allOpen = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (opened === sessions.length) {
          peak = rssKb(gateway.pid);
          clearInterval(check);
          resolve();
        }
      }, 20);
      setTimeout(() => {
        clearInterval(check);
        peak = rssKb(gateway.pid);
        resolve();
      }, 4_000);
    });
    let errors = 0;
    const ttfts: number[] = [];
    const runs = sessions.map((sid, i) =>
      streamOnce(
        agent,
        `${gateway.base}/messages/${sid}`,
        headersFor[i]!,
        JSON.stringify({ message: 'talk to me', stream: true }),
        /event: message/,
        () => opened++,
      ).then(
        (t) => ttfts.push(t),
        () => errors++,
      ),
    );
    await allOpen;
    await Promise.all(runs);
    return {
      streams: sessions.length,
      opened,
      ttftP50Ms: percentileOf(ttfts, 50),
      ttftP99Ms: percentileOf(ttfts, 99),
      directTtftP50Ms: percentileOf(direct, 50),
      directTtftP99Ms: percentileOf(direct, 99),
      kbPerStream: (peak - before) / Math.max(1, opened),
      errors,
    };
  } finally {
    agent.destroy();
    await gateway.stop();
    await model.close();
  }
}
