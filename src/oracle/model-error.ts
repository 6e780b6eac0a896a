import { AppError, isStoreUnavailable } from '../errors/index.js';

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
 * A failure on the connection to the provider (refused, reset, unknown host…) as a ModelError,
 * so that no one takes it for a store outage: its socket error code (ECONNREFUSED) is the same
 * a PostgreSQL or Redis that cannot be reached gives. The provider's address stays out of the
 * message (it is sent to clients); the log has the code.
 */
export function modelConnectionError(err: unknown): Error {
  if (err instanceof ModelError || (err instanceof Error && err.name === 'AbortError')) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const why = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
  const retryable = typeof code !== 'string' || networkCodes.has(code);
  return new ModelError(`the language model cannot be reached (${why})`, 'network', retryable);
}

/** A failed turn as the HTTP error of the JSON (not streamed) answer: 502 MODEL_UNAVAILABLE. */
export function modelUnavailable(err: ModelError): AppError {
  return new AppError('MODEL_UNAVAILABLE', err.message, { kind: err.kind, retryable: err.retryable }, err.retryable);
}

/**
 * The kind, retryability and error code of a failed turn, for its SSE `error` event. A failure
 * that is not the provider's (a store, hearth itself) is `server` and retryable, as before.
 */
export function failureOf(err: unknown): { kind: FailureKind; retryable: boolean; code: string } {
  if (err instanceof ModelError) return { kind: err.kind, retryable: err.retryable, code: 'MODEL_UNAVAILABLE' };
  const code = err instanceof AppError ? err.code : isStoreUnavailable(err) ? 'UNAVAILABLE' : 'INTERNAL';
  return { kind: 'server', retryable: true, code };
}
