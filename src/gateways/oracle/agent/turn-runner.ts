import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../../store/redis/redis.js';
import type { Asker } from '../../../actors/runtime/asker.js';
import type { Keys } from '../../../store/redis/keys.js';
import type { Logger } from '../../../log.js';
import type { AgActionDeclaration, Agent, AttachmentRef, BrowserToolDeclaration, ToolCallRecord } from './agent.js';
import { emitChatEvent, isAbortOf, type ChatEventHub } from './chat-events.js';
import { keepTurn, releaseTurn } from './turn-mark.js';
import { askBrowser, runAction, type ClientCallDeps } from './client-calls.js';
import { failureOf, ModelError } from './model-error.js';
import { toolOutputText } from './tool-output.js';
import type { History } from './history.js';
import { chatRef } from '../../../actors/chat/messages.js';

export interface TurnDeps extends ClientCallDeps {
  /** Follows the session's stream for the client's answers to browser tools and actions. */
  hub: ChatEventHub;
  client: Asker;
  redis: RedisClient;
  keys: Keys;
  agent: Agent;
  log: Logger;
  /** The session's conversation so far, within the context budget (read before the new message). */
  history: (sessionId: string) => Promise<History>;
}

export interface TurnInput {
  browserTools?: BrowserToolDeclaration[];
  agActions?: AgActionDeclaration[];
  attachments?: AttachmentRef[];
  sessionId: string;
  requestId: string;
  did: string;
  message: string;
  timezone?: string;
  /** A model of GET /models the message asked for (the agent's default otherwise). */
  model?: string;
  /** The session stream's id before the turn was taken: an abort after it reaches the turn. */
  from: string;
}

/**
 * One agent turn: the human message joins the transcript, the agent runs, its tokens and tool
 * calls go to the session's event stream in the wire reference's order (reasoning, message…,
 * tool_call…, reasoning complete, done — or error then done), and the answer joins the
 * transcript. An abort (an event any process may write to the session's stream) stops the agent; the stream still ends with
 * `done`. The turn's in-flight mark is renewed while it runs and cleared at the end (if still its own).
 */
export async function runTurn(
  d: TurnDeps,
  t: TurnInput,
): Promise<{ id: string; content: string; toolCalls: ToolCallRecord[]; aborted: boolean }> {
  const emit = (event: string, data: Record<string, unknown>) =>
    emitChatEvent(d.redis, d.keys, t.sessionId, t.requestId, event, data);
  const stamp = () => new Date().toISOString();
  const abort = new AbortController();
  const stopKeeping = keepTurn(d.redis, d.keys, t.sessionId, t.requestId);
  // Through the gateway's one blocking read, shared with the turn's SSE stream: no polling.
  const unfollow = d.hub.follow(t.sessionId, t.from, (e) => isAbortOf(e, t.requestId) && abort.abort());
  const id = randomUUID();
  try {
    await emit('reasoning', {
      sessionId: t.sessionId,
      requestId: t.requestId,
      reasoning: 'Thinking...',
      isComplete: false,
      timestamp: stamp(),
    });
    // Read before the new message joins the transcript: the model gets it once, as the new one.
    const history = await d.history(t.sessionId);
    await d.client.ask(chatRef, t.sessionId, {
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
        history,
        ...(t.model ? { model: t.model } : {}),
        signal: abort.signal,
        ...(t.browserTools ? { browserTools: t.browserTools } : {}),
        ...(t.agActions ? { agActions: t.agActions } : {}),
        ...(t.attachments ? { attachments: t.attachments } : {}),
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
            ...(c.output === undefined ? {} : { output: toolOutputText(c.output) }),
          }),
        browserTool: (c) => askBrowser(d, { ...t, signal: abort.signal }, c),
        action: (c) => runAction(d, { ...t, signal: abort.signal }, c),
        render: (c) =>
          emit('render_component', { ...c, status: 'done', sessionId: t.sessionId, requestId: t.requestId }),
        route: (step) => emit('router.update', { step, sessionId: t.sessionId, requestId: t.requestId }),
        toolFailed: (name, err) =>
          d.log.warn(
            { tool: name, err: err instanceof Error ? err.message : String(err), sessionId: t.sessionId },
            'tool failed',
          ),
      },
    );
    await d.client.ask(chatRef, t.sessionId, {
      kind: 'append',
      ownerDid: t.did,
      messages: [{ id, type: 'ai', content: result.content, requestId: t.requestId, toolCalls: result.toolCalls }],
    });
    // The transcript changed: clients (another tab, a socket) drop their cached message list.
    await emit('message_cache_invalidation', { status: 'done', sessionId: t.sessionId, requestId: t.requestId });
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
    // What the client should do: wait (rate_limit), pay (billing), sign in again (auth), retry…
    await emit('error', {
      // The provider's own account (unreachable, refused with a status) is safe to show.
      error: err instanceof ModelError ? err.message : 'the agent could not answer',
      ...failureOf(err),
      sessionId: t.sessionId,
      requestId: t.requestId,
      timestamp: stamp(),
    }).catch((e: unknown) =>
      d.log.warn(
        { err: e instanceof Error ? e.message : String(e), sessionId: t.sessionId },
        'turn error event not written',
      ),
    );
    throw err;
  } finally {
    unfollow();
    // The session is free before `done` goes out: a client that sends its next message as soon
    // as it sees `done` is never told a turn is still in flight.
    stopKeeping();
    await releaseTurn(d.redis, d.keys, t.sessionId, t.requestId).catch(() => undefined); // lapses with TURN_MS
    await emit('done', {}).catch((e: unknown) =>
      d.log.warn(
        { err: e instanceof Error ? e.message : String(e), sessionId: t.sessionId },
        'turn done event not written',
      ),
    );
  }
}
