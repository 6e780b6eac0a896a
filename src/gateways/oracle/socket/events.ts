import { z } from 'zod';

/** What clients may send (spec 001 "Client to server"); payloads typed, anything else ignored. */
export const clientEvents = [
  'ping',
  'status',
  'subscribe',
  'list-events',
  'tool_result',
  'action_call_result',
] as const;

/** What the server emits (spec 001 "Server to client"). */
export const serverEvents = [
  'connected',
  'pong',
  'status',
  'subscribed',
  'available-events',
  'tool_call',
  'action_call',
  'render_component',
  'browser_tool_call',
  'router_update',
  'message_cache_invalidation',
] as const;

const stamped = { sessionId: z.string(), timestamp: z.string() };
/** Room events carry the session and the turn they belong to; plugins may add fields (kept). */
const roomEvent = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject({ sessionId: z.string(), requestId: z.string(), ...shape });
const status = z.enum(['isRunning', 'done', 'error']);

/**
 * The payload of every server event (wire reference, "socket.io"), checked before it is sent:
 * the gateway's own replies are built through these, and an agent event read from a session's
 * Redis stream that does not fit is dropped (and logged), never forwarded half-formed.
 */
export const serverPayloads = {
  connected: z.object({ message: z.string(), ...stamped }),
  pong: z.object(stamped),
  status: z.object({
    connected: z.boolean(),
    activeSessions: z.number().int().nonnegative(),
    totalConnections: z.number().int().nonnegative(),
    ...stamped,
  }),
  subscribed: z.object(stamped),
  'available-events': z.object({
    clientEvents: z.array(z.string()),
    serverEvents: z.array(z.string()),
    ...stamped,
  }),
  error: z.object({ message: z.string(), ...stamped }),
  tool_call: roomEvent({ toolName: z.string(), status, eventId: z.string().optional(), args: z.unknown().optional() }),
  action_call: roomEvent({ toolName: z.string(), toolCallId: z.string(), status, args: z.unknown().optional() }),
  render_component: roomEvent({ componentName: z.string(), args: z.unknown().optional(), status: status.optional() }),
  browser_tool_call: roomEvent({ toolCallId: z.string(), toolName: z.string(), args: z.unknown().optional() }),
  router_update: roomEvent({ step: z.string() }),
  message_cache_invalidation: roomEvent({ status: status.optional() }),
} as const;

export type ServerEvent = keyof typeof serverPayloads;
export type ServerPayload<E extends ServerEvent> = z.infer<(typeof serverPayloads)[E]>;

/**
 * Whether an agent event goes to the session's room. An `action_call` does only while it runs
 * (`isRunning`): ixo's SDK runs the `useAgAction` handler on every room `action_call`, whatever
 * its status, so a `done` there would run the action twice. Its `done` or `error` goes to the
 * SSE stream only, as the reference runtime does.
 */
export function goesToRoom(event: string, data: Record<string, unknown>): boolean {
  if (!forwarded.has(event)) return false;
  return event !== 'action_call' || data.status === 'isRunning';
}

/** Agent events forwarded from a session's Redis stream to its room (`router.update` is renamed). */
const forwarded = new Set([
  'tool_call',
  'action_call',
  'render_component',
  'browser_tool_call',
  'router_update',
  'router.update',
  'message_cache_invalidation',
]);

export const toolResult = z
  .object({
    toolCallId: z.string().min(1).max(200),
    sessionId: z.string().max(128).optional(),
    result: z.unknown(),
    error: z.string().max(10_000).optional(),
  })
  .strict();

/** The ixo client SDK sends `error` beside `result: {success: false, error}` when its handler threw. */
export const actionCallResult = z
  .object({
    sessionId: z.string().max(128).optional(),
    toolCallId: z.string().min(1).max(200),
    result: z.unknown(),
    error: z.string().max(10_000).optional(),
  })
  .strict();
