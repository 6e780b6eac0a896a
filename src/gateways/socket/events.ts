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

/** Agent events forwarded from a session's Redis stream to its room (`router.update` is renamed). */
export const forwarded = new Set([
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
