/**
 * The ixo oracles client SDK's HTTP and SSE code path (`@ixo/oracles-client-sdk` 1.4.0), as calls.
 * The SDK itself cannot be installed here (it depends on `@ixo/*` packages that are not on the
 * npm registry) and its entry points are React hooks, so this file makes the same requests, with
 * the same headers and body keys in the same order, and reads replies the way its compiled code
 * does (read from the package's `dist/`, rewritten here, not copied):
 *
 * - `request()`: always `Content-Type: application/json`; on a non-2xx it reads the JSON body and
 *   throws an error built from its top-level `message` and `statusCode`.
 * - `authHeaders()`: `x-ucan-delegation` always, plus `Authorization: Bearer <invocation>` and
 *   `X-Auth-Type: ucan` when the app can mint invocations.
 * - `askOracleStream()`: `POST /messages/:sessionId` with `{message, stream: true, metadata?,
 *   attachments?, tools?, agActions?, model?, timezone}`; refuses a reply without `X-Request-Id`.
 * - `useModels()`: `GET /models` without auth headers; reads `models` and `default`.
 * - `parseSSEStream()`: splits on `\n`, trims each line, takes `event:`, `data:` and a numeric
 *   `id:`, and hands an event out at a blank or comment line when it has both event and data;
 *   only its ten known event names are passed on.
 */

export const SDK_EVENTS = [
  'message',
  'tool_call',
  'action_call',
  'error',
  'done',
  'router.update',
  'render_component',
  'browser_tool_call',
  'message_cache_invalidation',
  'reasoning',
] as const;

export type SdkEvent = { event: (typeof SDK_EVENTS)[number]; data: Record<string, unknown>; id?: number };

export class SdkRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

export function authHeaders(delegation: string, invocation?: string): Record<string, string> {
  return {
    'x-ucan-delegation': delegation,
    ...(invocation ? { Authorization: `Bearer ${invocation}`, 'X-Auth-Type': 'ucan' } : {}),
  };
}

/** The SDK's `authedRequest` → `request`: JSON in and out, errors from the body's `message`. */
export async function sdkRequest<T>(
  url: string,
  method: 'GET' | 'POST' | 'DELETE',
  options: { headers: Record<string, string>; body?: string },
): Promise<T> {
  const response = await fetch(url, {
    ...options,
    method,
    headers: { 'Content-Type': 'application/json', ...options.headers },
  });
  if (!response.ok) {
    const errorData = (await response.json()) as { message?: string; statusCode?: number };
    throw new SdkRequestError(errorData.message ?? '', errorData.statusCode);
  }
  return (await response.json()) as T;
}

/** The SDK's streamed turn: the request, the request id check, every parsed event to `onEvent`. */
export async function askOracleStream(p: {
  apiURL: string;
  sessionId: string;
  message: string;
  headers: Record<string, string>;
  metadata?: Record<string, unknown>;
  browserTools?: Array<{ name: string; description: string; schema: unknown }>;
  agActions?: Array<{ name: string; description: string; schema: unknown; hasRender: boolean }>;
  /** `useChat({ model })`: sent only when set. */
  model?: string;
  /** Aborts the request (the SDK's stop, or a page left mid-turn). */
  signal?: AbortSignal;
  onEvent: (e: SdkEvent) => void | Promise<void>;
}): Promise<{ text: string; requestId: string }> {
  const response = await fetch(`${p.apiURL}/messages/${p.sessionId}`, {
    headers: { 'Content-Type': 'application/json', ...p.headers },
    body: JSON.stringify({
      message: p.message,
      stream: true,
      ...(p.metadata && { metadata: p.metadata }),
      ...(p.browserTools && { tools: p.browserTools }),
      ...(p.agActions && { agActions: p.agActions }),
      ...(p.model && { model: p.model }),
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }),
    method: 'POST',
    ...(p.signal && { signal: p.signal }),
  });
  const requestId = response.headers.get('X-Request-Id');
  if (!response.ok) {
    const body = (await response.json()) as { message?: string; statusCode?: number };
    throw new SdkRequestError(body.message ?? '', body.statusCode);
  }
  if (!requestId) throw new Error('Did not receive a request ID');
  if (!response.body) throw new Error('ReadableStream not supported in this browser');
  let text = '';
  for await (const e of parseSseStream(response.body.getReader())) {
    if (e.event === 'message') text += String(e.data.content);
    await p.onEvent(e);
    if (e.event === 'done') break;
  }
  return { text, requestId };
}

/**
 * The SDK's `useModels`: `GET /models` through its plain `request` (no UCAN headers: the
 * reference runtime serves it unauthenticated), reading `models` and `default`.
 */
export async function sdkListModels(
  apiURL: string,
): Promise<{ models: Array<{ id: string; label: string; isDefault?: boolean }>; defaultModelId?: string }> {
  const data = await sdkRequest<{
    models?: Array<{ id: string; label: string; isDefault?: boolean }>;
    default?: string;
  }>(`${apiURL}/models`, 'GET', { headers: {} });
  const models = data.models ?? [];
  return { models, defaultModelId: data.default ?? models.find((m) => m.isDefault)?.id };
}

/** The SDK's SSE reader, line by line, as described above. */
async function* parseSseStream(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<SdkEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data = '';
  let id: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.trim();
      if (line === '' || line.startsWith(':')) {
        if (event && data) {
          const parsed = JSON.parse(data) as Record<string, unknown>;
          if ((SDK_EVENTS as readonly string[]).includes(event)) {
            yield { event: event as SdkEvent['event'], data: parsed, ...(id === undefined ? {} : { id }) };
          }
          event = '';
          data = '';
          id = undefined;
        }
        continue;
      }
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data = line.slice(5).trim();
      else if (line.startsWith('id:')) {
        const n = Number(line.slice(3).trim());
        if (Number.isFinite(n)) id = n;
      }
    }
  }
}
