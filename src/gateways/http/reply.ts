/** What a handler returns; the server writes it in one corked call. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * A streamed body (server-sent events): called once the status and headers are sent; `write`
   * returns false once the client is gone; the response ends when the promise settles.
   */
  stream?: (write: (chunk: string) => boolean, signal: AbortSignal) => Promise<void>;
}

const statusText: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusLine(status: number): string {
  return `${status} ${statusText[status] ?? 'Status'}`;
}

export function json(status: number, data: unknown, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(data),
  };
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): Reply {
  return { status, headers: { 'Content-Type': contentType }, body };
}

/** The headers of a server-sent event stream: never cached or buffered by a proxy. */
export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
  'Access-Control-Expose-Headers': 'X-Request-Id',
};

/** One server-sent event frame. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
