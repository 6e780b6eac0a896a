import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ActorClient } from '../actors/runtime/actor-client.js';
import type { Keys } from '../actors/runtime/keys.js';
import type { Logger } from '../log.js';
import type { Agent, ToolCallRecord } from './agent.js';
import { emitChatEvent } from './chat-events.js';

export interface TurnDeps {
  client: ActorClient;
  redis: Redis;
  keys: Keys;
  agent: Agent;
  log: Logger;
}

export interface TurnInput {
  sessionId: string;
  requestId: string;
  did: string;
  message: string;
  timezone?: string;
}

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
