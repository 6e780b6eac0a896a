import { randomBytes } from 'node:crypto';
import { signatureHeaders, type Signer } from './signer.js';

export const adminKey = `admin-${randomBytes(24).toString('hex')}`;

export interface Api {
  base: string;
  /** Requests made with this API key are signed with this supplier key (RFC 9421). */
  signWith(apiKey: string, signer: Signer): void;
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
export function api(port: number, clock: () => Date = () => new Date()): Api {
  const base = `http://127.0.0.1:${port}`;
  const signers = new Map<string, Signer>();
  return {
    base,
    signWith(apiKey, signer) {
      signers.set(apiKey, signer);
    },
    async call(method, path, opts = {}) {
      const key = opts.key ?? adminKey;
      const body =
        opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      const signer = signers.get(key);
      const signed = signer
        ? signatureHeaders(signer, method, path, body ?? '', Math.floor(clock().getTime() / 1000))
        : {};
      const headers: Record<string, string> = { ...signed, ...opts.headers };
      if (key) headers.authorization = `Bearer ${key}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}
