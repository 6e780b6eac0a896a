import { createHash } from 'node:crypto';
import type { RedisClient } from '../../../store/redis/redis.js';
import type { Keys } from '../../../store/redis/keys.js';
import type { ClientCall } from './agent.js';
import { emitChatEvent, lastEventId, type ChatEventHub } from './chat-events.js';
import { chatKeys } from '../chat-keys.js';

/** How long the client may take to answer a browser tool or an AG-UI action (wire reference: 15 s). */
const CLIENT_CALL_TIMEOUT_MS = 15_000;

/** The result the model sees when the client did not answer in time. */
const OUTCOME_UNKNOWN = { outcome: 'FRONTEND_OUTCOME_UNKNOWN' } as const;

export interface ClientCallDeps {
  hub: ChatEventHub;
  redis: RedisClient;
  keys: Keys;
  /** Overrides the 15 s wait (tests). */
  clientCallTimeoutMs?: number;
}

/** The turn a call belongs to: its stream, its request, and its abort. */
export interface TurnOfCall {
  sessionId: string;
  requestId: string;
  signal: AbortSignal;
}

/** The key that says a turn waits for the answer to `toolCallId` (any text: it is hashed). */
export function awaitedKey(keys: Keys, sessionId: string, toolCallId: string): string {
  return chatKeys.awaited(keys, sessionId, createHash('sha256').update(toolCallId).digest('hex').slice(0, 32));
}

/**
 * Takes the mark of a waiting call: true once, for the first answer while the turn still waits.
 * The socket gateway relays only such answers, so a client cannot fill the session's stream
 * with results nobody asked for.
 */
export async function takeAwaited(
  redis: RedisClient,
  keys: Keys,
  sessionId: string,
  toolCallId: string,
): Promise<boolean> {
  return (await redis.del(awaitedKey(keys, sessionId, toolCallId))) === 1;
}

type ClientAnswer = { kind: 'result'; result: unknown; error?: string } | { kind: 'timeout' } | { kind: 'aborted' };

/**
 * Writes the call event to the session's stream (its SSE stream and its sockets' room see it),
 * then waits for the answer event with the same `toolCallId`. The socket gateway writes that
 * answer to the same stream, so the turn hears it whichever process the browser is connected to.
 * Only what comes after the call is read: an old answer with a reused id is never taken.
 */
async function callClient(
  d: ClientCallDeps,
  turn: TurnOfCall,
  call: ClientCall,
  events: { call: string; payload: Record<string, unknown>; answer: 'tool_result' | 'action_call_result' },
): Promise<ClientAnswer> {
  if (turn.signal.aborted) return { kind: 'aborted' };
  const from = await lastEventId(d.redis, d.keys, turn.sessionId);
  const answered = new Promise<ClientAnswer>((resolve) => {
    const done = (a: ClientAnswer) => {
      clearTimeout(timer);
      turn.signal.removeEventListener('abort', onAbort);
      stop();
      resolve(a);
    };
    const onAbort = () => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'timeout' }), d.clientCallTimeoutMs ?? CLIENT_CALL_TIMEOUT_MS);
    const stop = d.hub.follow(turn.sessionId, from, (e) => {
      if (e.event !== events.answer || e.data.toolCallId !== call.toolCallId) return;
      const error = typeof e.data.error === 'string' ? e.data.error : undefined;
      done({ kind: 'result', result: e.data.result, ...(error === undefined ? {} : { error }) });
    });
    turn.signal.addEventListener('abort', onAbort, { once: true });
    // An abort while the stream id was read has already fired: a listener added now never would.
    if (turn.signal.aborted) onAbort();
  });
  // Marked before the call goes out, so the quickest answer finds the mark; it lapses a little
  // after the wait (an answer after that would be dropped by the turn anyway).
  const timeoutMs = d.clientCallTimeoutMs ?? CLIENT_CALL_TIMEOUT_MS;
  await d.redis.set(awaitedKey(d.keys, turn.sessionId, call.toolCallId), '1', 'PX', timeoutMs + 5_000);
  await emitChatEvent(d.redis, d.keys, turn.sessionId, turn.requestId, events.call, events.payload);
  return answered;
}

/** A `browser_tool_call` to the session's sockets, answered by a `tool_result` from any process. */
export async function askBrowser(d: ClientCallDeps, t: TurnOfCall, c: ClientCall): Promise<unknown> {
  const answer = await callClient(d, t, c, {
    call: 'browser_tool_call',
    payload: { toolCallId: c.toolCallId, toolName: c.toolName, args: c.args },
    answer: 'tool_result',
  });
  if (answer.kind === 'timeout') return OUTCOME_UNKNOWN;
  if (answer.kind === 'aborted') return { outcome: 'aborted' };
  return answer.error === undefined ? answer.result : { error: answer.error };
}

/**
 * An AG-UI action: `action_call` isRunning, the client's `action_call_result` (15 s), then
 * `action_call` done with its output, or error with the reason (the client's, a timeout, an abort).
 */
export async function runAction(
  d: ClientCallDeps,
  t: TurnOfCall,
  c: ClientCall,
): Promise<{ status: 'done' | 'error'; output: unknown }> {
  const base = {
    requestId: t.requestId,
    sessionId: t.sessionId,
    toolName: c.toolName,
    toolCallId: c.toolCallId,
    args: c.args,
  };
  const answer = await callClient(d, t, c, {
    call: 'action_call',
    payload: { ...base, status: 'isRunning' },
    answer: 'action_call_result',
  });
  const emit = (data: Record<string, unknown>) =>
    emitChatEvent(d.redis, d.keys, t.sessionId, t.requestId, 'action_call', { ...base, ...data });
  if (answer.kind === 'result' && answer.error === undefined) {
    await emit({ status: 'done', output: answer.result });
    return { status: 'done', output: answer.result };
  }
  const error =
    answer.kind === 'result'
      ? (answer.error ?? 'the action failed')
      : answer.kind === 'timeout'
        ? `the client did not answer within ${(d.clientCallTimeoutMs ?? CLIENT_CALL_TIMEOUT_MS) / 1000} s`
        : 'the turn was aborted';
  await emit({ status: 'error', error });
  const output = answer.kind === 'timeout' ? OUTCOME_UNKNOWN : answer.kind === 'result' ? answer.result : { error };
  return { status: 'error', output: output ?? { error } };
}
