import { AppError, isAppError, isStoreUnavailable } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import { json, type Reply } from './reply.js';

/**
 * Turns any thrown value into the one error body
 * `{"statusCode","message","error":{"code","message","details"?}}`: the top-level `statusCode` and
 * `message` are what clients written for the ixo oracle runtime (a NestJS app) read.
 */
export function errorReply(err: unknown, log: Logger): Reply {
  const appError = isAppError(err)
    ? err
    : isStoreUnavailable(err)
      ? unavailable()
      : new AppError('INTERNAL', 'internal error');
  if (appError.status === 503) {
    // An outage, not a bug: one line with the cause, no stack per request.
    log.warn({ code: appError.code, err: err instanceof Error ? err.message : String(err) }, 'request failed');
  } else if (appError.status >= 500) {
    log.error({ err: isAppError(err) ? { code: err.code, message: err.message } : err }, 'request failed');
  } else {
    log.info({ code: appError.code }, 'request refused');
  }
  return appErrorReply(appError);
}

/** The error body of an AppError, with `Retry-After: 1` when it is retryable; logs nothing. */
export function appErrorReply(appError: AppError): Reply {
  const headers: Record<string, string> = appError.retryable ? { 'Retry-After': String(retryAfterOf(appError)) } : {};
  return json(
    appError.status,
    { statusCode: appError.status, message: appError.message, error: appError.toJSON() },
    headers,
  );
}

/** Seconds to wait: the error's own `details.retryAfterSeconds` (a rate limit's), else 1. */
function retryAfterOf(appError: AppError): number {
  const details = appError.details as { retryAfterSeconds?: unknown } | undefined;
  const after = details?.retryAfterSeconds;
  return typeof after === 'number' && Number.isInteger(after) && after > 0 ? after : 1;
}

/** A store could not be reached: the client should retry (Retry-After: 1). */
function unavailable(): AppError {
  return new AppError('UNAVAILABLE', 'a store (PostgreSQL or Redis) cannot be reached; retry later', undefined, true);
}
