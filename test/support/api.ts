import { randomBytes } from 'node:crypto';

export const adminKey = `admin-${randomBytes(24).toString('hex')}`;

export interface Api {
  base: string;
  call(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
    body: any;
    headers: Headers;
  }>;
}

/** A small JSON client for the HTTP API, authenticating with the given key (admin by default). */
export function api(port: number): Api {
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key ?? adminKey;
      if (key) headers.authorization = `Bearer ${key}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body:
          opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, headers: res.headers };
    },
  };
}
