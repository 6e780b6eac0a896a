/** The wire reference's failure kinds of an SSE `error` event (oracle-wire.md). */
export type FailureKind = 'rate_limit' | 'billing' | 'auth' | 'timeout' | 'server' | 'network' | 'unknown';

/** A failure of the language model's provider, with what a client should make of it. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    /** Whether the same message may succeed if sent again later. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** What the provider's HTTP status says: wait (429), pay (402), re-authenticate (401/403)… */
export function modelErrorForStatus(status: number): ModelError {
  const message = `the language model answered ${status}`;
  if (status === 429) return new ModelError(message, 'rate_limit', true);
  if (status === 402) return new ModelError(message, 'billing', false);
  if (status === 401 || status === 403) return new ModelError(message, 'auth', false);
  if (status === 408 || status === 504) return new ModelError(message, 'timeout', true);
  if (status >= 500) return new ModelError(message, 'server', true);
  return new ModelError(message, 'unknown', false);
}

/** Connection failures on the way to the provider (Node's error codes). */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
]);

/**
 * The kind and retryability of a failed turn, for its SSE `error` event. A failure that is not
 * the provider's (a store, hearth itself) is `server` and retryable, as before.
 */
export function failureOf(err: unknown): { kind: FailureKind; retryable: boolean } {
  if (err instanceof ModelError) return { kind: err.kind, retryable: err.retryable };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && networkCodes.has(code)) return { kind: 'network', retryable: true };
  return { kind: 'server', retryable: true };
}
