const STORE = 'hearth.adminKey';

/** The admin key, held in this tab's sessionStorage only (never a URL, never a cookie). */
export const session = {
  key: () => sessionStorage.getItem(STORE),
  signIn: (key) => sessionStorage.setItem(STORE, key),
  signOut: () => sessionStorage.removeItem(STORE),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

/** Called when the key stops working (revoked, or the wrong one): the app shows the sign-in. */
let onUnauthorized = () => {};
export function whenUnauthorized(f) {
  onUnauthorized = f;
}

function headers(extra = {}) {
  return { Authorization: `Bearer ${session.key()}`, ...extra };
}

/** A JSON call to hearth's API with the admin key. */
export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const data = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/**
 * A server-sent event stream read with fetch (EventSource cannot send the Authorization header):
 * calls `onEvent(event, data)` per frame until the stream ends or `signal` aborts.
 */
export async function stream(path, onEvent, signal) {
  const res = await fetch(path, { headers: headers({ Accept: 'text/event-stream' }), signal, cache: 'no-store' });
  if (!res.ok) {
    if (res.status === 401) onUnauthorized();
    throw new ApiError(res.status, await res.json().catch(() => undefined));
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) onEvent(event, JSON.parse(data.join('\n')));
    }
  }
}
