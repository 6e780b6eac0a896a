/**
 * The registry of error codes: each code has one HTTP status and a line of documentation.
 * A test fails when a code is used but missing here, or documented twice in the README table.
 */
export const errorCodes = {
  VALIDATION_FAILED: { status: 400, doc: 'The request body, query or path failed validation.' },
  INVALID_JSON: { status: 400, doc: 'The body is not valid JSON.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, doc: 'The body is not `application/json`.' },
  BODY_TOO_LARGE: { status: 413, doc: 'The body is larger than MAX_BODY_BYTES.' },
  BAD_REQUEST_ABORTED: {
    status: 400,
    doc: 'The client closed the connection before the body was complete (logged, never sent).',
  },
  NOT_FOUND: { status: 404, doc: 'No such route or resource.' },
  METHOD_NOT_ALLOWED: { status: 405, doc: 'The route exists but not for this method.' },
  ASK_TIMEOUT: {
    status: 504,
    doc: 'The actor did not answer before the deadline; the operation may still apply later (retry with the same Idempotency-Key).',
  },
  OVERLOADED: { status: 503, doc: 'Too many requests in flight in this gateway; retry later.' },
  UNAVAILABLE: { status: 503, doc: 'Redis or PostgreSQL cannot be reached; retry later.' },
  SHUTTING_DOWN: { status: 503, doc: 'This process is shutting down; retry on another.' },
  ACTOR_FAILED: {
    status: 500,
    doc: 'The actor could not process the message; it was moved to the dead-letter stream.',
  },
  INTERNAL: { status: 500, doc: 'An unexpected error; the log has the details under the request id.' },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof errorCodes;

export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}
