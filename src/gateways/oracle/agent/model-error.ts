import { AppError, isStoreUnavailable } from '../../../errors/index.js';

/** The wire reference's failure kinds of an SSE `error` event (oracle-wire.md). */
export type FailureKind = 'rate_limit' | 'billing' | 'auth' | 'timeout' | 'server' | 'network' | 'unknown';

/** A failure of the language model's provider, with what a client should make of it. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    /** Whether the same message may succeed if sent again later. */
    readonly retryable: boolean,
    /** The provider's own Retry-After, when it gave one (seconds). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A Retry-After header's delay in seconds (a number of seconds or an HTTP date), if usable. */
function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - now) / 1000;
  return Number.isFinite(seconds) ? Math.min(3_600, Math.max(1, Math.ceil(seconds))) : undefined;
}

/** What the provider's HTTP status says: wait (429), pay (402), re-authenticate (401/403)… */
export function modelErrorForStatus(status: number, retryAfter?: string): ModelError {
  const message = `the language model answered ${status}`;
  if (status === 429) return new ModelError(message, 'rate_limit', true, retryAfterSeconds(retryAfter));
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

/** The error code of a model failure: the provider's rate limit is the client's to wait out. */
function codeOf(err: ModelError): 'MODEL_RATE_LIMITED' | 'MODEL_UNAVAILABLE' {
  return err.kind === 'rate_limit' ? 'MODEL_RATE_LIMITED' : 'MODEL_UNAVAILABLE';
}

/**
 * A failed turn as the HTTP error of the JSON (not streamed) answer, classified as the stream's
 * `error` event is: 429 MODEL_RATE_LIMITED (Retry-After the provider's, else 1), otherwise 502
 * MODEL_UNAVAILABLE; `details` carries the kind and whether to retry.
 */
export function modelFailure(err: ModelError): AppError {
  const details = {
    kind: err.kind,
    retryable: err.retryable,
    ...(err.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: err.retryAfterSeconds }),
  };
  return new AppError(codeOf(err), err.message, details, err.retryable);
}

/**
 * The kind, retryability and error code of a failed turn, for its SSE `error` event. A failure
 * that is not the provider's (a store, hearth itself) is `server` and retryable, as before.
 */
export function failureOf(err: unknown): { kind: FailureKind; retryable: boolean; code: string } {
  if (err instanceof ModelError) return { kind: err.kind, retryable: err.retryable, code: codeOf(err) };
  const code = err instanceof AppError ? err.code : isStoreUnavailable(err) ? 'UNAVAILABLE' : 'INTERNAL';
  return { kind: 'server', retryable: true, code };
}
