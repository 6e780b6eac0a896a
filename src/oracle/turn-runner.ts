import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ActorClient } from '../actors/runtime/actor-client.js';
import type { Keys } from '../actors/runtime/keys.js';
import type { Logger } from '../log.js';
import type { Agent, BrowserToolDeclaration, ToolCallRecord } from './agent.js';
import { emitChatEvent, lastEventId, type ChatEventHub } from './chat-events.js';

export interface TurnDeps {
  /** Follows the session's stream for browser tool results. */
  hub: ChatEventHub;
  client: ActorClient;
  redis: Redis;
  keys: Keys;
  agent: Agent;
  log: Logger;
}

export interface TurnInput {
  browserTools?: BrowserToolDeclaration[];
  sessionId: string;
  requestId: string;
  did: string;
  message: string;
  timezone?: string;
}

/** How long a browser tool may take to answer (wire reference: 15 s). */
export const BROWSER_TOOL_TIMEOUT_MS = 15_000;

/** How often a running turn looks for an abort (set by any gateway). */
const ABORT_POLL_MS = 100;

/**
 * One agent turn: the human message joins the transcript, the agent runs, its tokens and tool
 * calls go to the session's event stream in the wire reference's order (reasoning, message…,
 * tool_call…, reasoning complete, done — or error then done), and the answer joins the
 * transcript. An abort (a key any process may set) stops the agent; the stream still ends with
 * `done`. The turn's in-flight mark is cleared at the end.
 */
export async function runTurn(
  d: TurnDeps,
  t: TurnInput,
): Promise<{ id: string; content: string; toolCalls: ToolCallRecord[]; aborted: boolean }> {
  const emit = (event: string, data: Record<string, unknown>) =>
    emitChatEvent(d.redis, d.keys, t.sessionId, t.requestId, event, data);
  const stamp = () => new Date().toISOString();
  const abort = new AbortController();
  const poll = setInterval(() => {
    d.redis.exists(d.keys.chatAbort(t.requestId)).then(
      (n) => n > 0 && abort.abort(),
      () => undefined,
    );
  }, ABORT_POLL_MS);
  const id = randomUUID();
  try {
    await emit('reasoning', {
      sessionId: t.sessionId,
      requestId: t.requestId,
      reasoning: 'Thinking...',
      isComplete: false,
      timestamp: stamp(),
    });
    await d.client.ask('chat', t.sessionId, {
      kind: 'append',
      ownerDid: t.did,
      messages: [{ id: randomUUID(), type: 'human', content: t.message, requestId: t.requestId }],
    });
    const result = await d.agent.run(
      {
        sessionId: t.sessionId,
        requestId: t.requestId,
        did: t.did,
        message: t.message,
        timezone: t.timezone,
        signal: abort.signal,
        ...(t.browserTools ? { browserTools: t.browserTools } : {}),
      },
      {
        token: (content) => emit('message', { content, timestamp: stamp() }),
        toolCall: (c) =>
          emit('tool_call', {
            requestId: t.requestId,
            sessionId: t.sessionId,
            toolName: c.name,
            args: c.args,
            status: c.status,
            eventId: c.eventId,
            ...(c.output === undefined ? {} : { output: c.output }),
          }),
        browserTool: (c) => askBrowser(d, t, c),
      },
    );
    await d.client.ask('chat', t.sessionId, {
      kind: 'append',
      ownerDid: t.did,
      messages: [{ id, type: 'ai', content: result.content, requestId: t.requestId, toolCalls: result.toolCalls }],
    });
    await emit('reasoning', {
      sessionId: t.sessionId,
      requestId: t.requestId,
      reasoning: '',
      isComplete: true,
      timestamp: stamp(),
    });
    return { id, ...result, aborted: abort.signal.aborted };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    d.log.warn({ err: message, sessionId: t.sessionId }, 'agent turn failed');
    await emit('error', {
      error: 'the agent could not answer',
      kind: 'server',
      retryable: true,
      sessionId: t.sessionId,
      requestId: t.requestId,
      timestamp: stamp(),
    }).catch(() => undefined);
    throw err;
  } finally {
    clearInterval(poll);
    await emit('done', {}).catch(() => undefined);
    await d.redis.del(d.keys.chatTurn(t.sessionId), d.keys.chatAbort(t.requestId)).catch(() => undefined);
  }
}

/** A `browser_tool_call` to the session's sockets, answered by a `tool_result` from any process. */
async function askBrowser(
  d: TurnDeps,
  t: TurnInput,
  c: { toolCallId: string; toolName: string; args: unknown },
): Promise<unknown> {
  const from = await lastEventId(d.redis, d.keys, t.sessionId);
  const answered = new Promise<unknown>((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve({ outcome: 'FRONTEND_OUTCOME_UNKNOWN' });
    }, BROWSER_TOOL_TIMEOUT_MS);
    const stop = d.hub.follow(t.sessionId, from, (e) => {
      if (e.event !== 'tool_result' || e.data.toolCallId !== c.toolCallId) return;
      clearTimeout(timer);
      stop();
      resolve(e.data.error ? { error: e.data.error } : e.data.result);
    });
  });
  await emitChatEvent(d.redis, d.keys, t.sessionId, t.requestId, 'browser_tool_call', {
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    args: c.args,
  });
  return answered;
}
