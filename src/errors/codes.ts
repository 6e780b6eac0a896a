/**
 * The registry of error codes: each code has one HTTP status and a line of documentation.
 * A test fails when a code is used but missing here, or documented twice in the table of docs/api.md.
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
  UNAUTHORIZED: { status: 401, doc: 'No API key, or an unknown or revoked one.' },
  SIGNATURE_REQUIRED: { status: 401, doc: 'A supplier request came without an HTTP Message Signature.' },
  SIGNATURE_INVALID: { status: 401, doc: 'The HTTP Message Signature is malformed, stale, or does not verify.' },
  SIGNATURE_REPLAYED: {
    status: 401,
    doc: 'What this HTTP Message Signature signs (its signature base) was used before.',
  },
  RATE_LIMITED: {
    status: 429,
    doc: 'Too many requests of this API key or DID, or too many failed authentications from this address; `Retry-After` says when to retry.',
  },
  FORBIDDEN: { status: 403, doc: "The caller's role or DID may not do this." },
  NOT_FOUND: { status: 404, doc: 'No such route or resource.' },
  METHOD_NOT_ALLOWED: { status: 405, doc: 'The route exists but not for this method.' },
  ALREADY_EXISTS: {
    status: 409,
    doc: 'A record with this id, or another unique value of it (a phone number), already exists.',
  },
  IDEMPOTENCY_KEY_REUSED: { status: 409, doc: 'The Idempotency-Key was used before for a different request.' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, doc: 'The first request with this Idempotency-Key has not finished; retry.' },
  VOUCHER_NOT_FOUND: { status: 404, doc: 'No voucher with this id.' },
  CHAT_SESSION_NOT_FOUND: { status: 404, doc: "No chat session with this id (or it is another user's)." },
  PAYMENT_REQUIRED: { status: 402, doc: 'A credits plugin refused the message (no, inactive or low subscription).' },
  CHAT_TURN_IN_FLIGHT: { status: 409, doc: 'The session is already answering a message; abort it or wait.' },
  CHAT_REQUEST_ID_REUSED: {
    status: 409,
    doc: 'The X-Request-Id already named a turn of this session (an id names one turn); send a new one, or none.',
  },
  UCAN_REQUIRED: {
    status: 401,
    doc: 'No valid UCAN: the message says which (spec 001 gives the two messages verbatim).',
  },
  MODEL_RATE_LIMITED: {
    status: 429,
    doc: "The oracle's language model provider refused for its rate limit; `Retry-After` is the provider's when it gave one.",
  },
  MODEL_UNAVAILABLE: {
    status: 502,
    doc: "The oracle's language model cannot be reached, or its provider refused; `details` has the `kind` and whether to retry.",
  },
  ORACLE_NOT_CONFIGURED: { status: 503, doc: 'The oracle routes need ORACLE_DID; this deployment has none.' },
  LEDGER_BLOCK_NOT_FOUND: { status: 404, doc: 'No ledger block at this height (yet).' },
  LEDGER_ENTRY_NOT_FOUND: { status: 404, doc: 'No ledger entry with this id.' },
  LEDGER_ENTRY_PENDING: {
    status: 404,
    doc: 'The entry is in the outbox, waiting for its block (at most LEDGER_BATCH_MS while the writer is healthy); retry.',
  },
  VOUCHER_NOT_ACTIVE: {
    status: 409,
    doc: 'Redemption rule 1: the voucher is redeemed or revoked, or before its issuance date.',
  },
  VOUCHER_EXPIRED: { status: 409, doc: 'Redemption rule 1: the voucher is past its expiry date.' },
  SUPPLIER_NOT_AUTHORIZED: { status: 403, doc: 'Redemption rule 2: the supplier is unknown or not authorized.' },
  SUPPLIER_DID_MISMATCH: { status: 403, doc: "supplierDid is not the DID of the caller's key." },
  INSUFFICIENT_BALANCE: {
    status: 409,
    doc: "Redemption rule 3: the amount exceeds the voucher's available balance; or a conversion asks more than the account has available (`details.available`).",
  },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, doc: 'This operation moves money and needs an Idempotency-Key.' },
  POOL_NOT_FOUND: { status: 404, doc: 'No liquidity pool with this id, or it has not been seeded yet.' },
  CONVERSION_NOT_FOUND: { status: 404, doc: "No conversion with this id (or it is another party's)." },
  SLIPPAGE: {
    status: 409,
    doc: 'The pool would pay less than `minReceive`; nothing moved (`details.quote` is what it would have paid).',
  },
  ORDER_NOT_FOUND: { status: 404, doc: "No payout or exchange order with this id (or it is another party's)." },
  ORDER_NOT_PENDING: {
    status: 409,
    doc: 'The order is not waiting for its counterparty: still reserving (retry shortly), or settled or failed otherwise.',
  },
  COUNTERPARTY_NOT_FOUND: {
    status: 404,
    doc: 'No payment processor or exchange operator with this id (or not of the kind named).',
  },
  CALLBACK_SIGNATURE_INVALID: {
    status: 401,
    doc: "A counterparty's callback has no valid `X-Hearth-Signature` over its timestamp and body, or its timestamp is more than 5 minutes off.",
  },
  ITMO_CLAIM_NOT_FOUND: { status: 404, doc: "No ITMO claim with this id (or it is another party's)." },
  ITMO_CLAIM_UNAVAILABLE: {
    status: 409,
    doc: 'A claim named for a certificate is unknown, or committed to another certificate already (`details.claims`).',
  },
  ITMO_CERTIFICATE_NOT_FOUND: { status: 404, doc: "No ITMO certificate with this id (or it is another party's)." },
  ITMO_CERTIFICATE_DECIDED: {
    status: 409,
    doc: 'A regulator approved or rejected this certificate already, the other way.',
  },
  NO_LIQUIDITY: { status: 409, doc: 'The pool cannot fill this amount (it would pay nothing); nothing moved.' },
  PRODUCT_NOT_APPROVED: {
    status: 400,
    doc: 'Redemption rule 4: the product is unknown or not approved for the scheme.',
  },
  CERTIFICATE_NOT_FOUND: { status: 404, doc: 'Issuance rule 1: no emission reduction certificate with this id.' },
  CERTIFICATE_NOT_VERIFIED: { status: 400, doc: 'Issuance rule 1: the certificate is pending or revoked.' },
  HOUSEHOLD_NOT_REGISTERED: { status: 400, doc: 'Issuance rule 2: the recipient is not a registered household.' },
  VALUE_MISMATCH: { status: 400, doc: "Issuance rule 3: the value is not the certificate's verified reduction." },
  CERTIFICATE_ALREADY_USED: { status: 409, doc: 'The certificate already backs a voucher.' },
  INVALID_DATES: { status: 400, doc: 'A date is not a real calendar date, or expiryDate is before issuanceDate.' },
  REDEMPTION_NOT_FOUND: { status: 404, doc: 'No redemption with this id.' },
  CLAIM_NOT_FOUND: { status: 404, doc: 'No claim with this id.' },
  CLAIM_NOT_YOURS: { status: 403, doc: 'Only the supplier that made the redemption may claim it.' },
  CLAIM_PROOF_INVALID: {
    status: 400,
    doc: "Claim rule 1: the proof is not a compact JWS (EdDSA) by the supplier's key over this redemption.",
  },
  CLAIM_NOT_IN_PLAN: {
    status: 400,
    doc: "Claim rule 2: the credential type or the product is not in the certificate's monitoring plan.",
  },
  CLAIM_WINDOW_CLOSED: { status: 400, doc: "Claim rule 3: the plan's claim window after the redemption has passed." },
  CLAIM_ALREADY_SUBMITTED: { status: 409, doc: 'The redemption already has a claim.' },
  CLAIM_ALREADY_DECIDED: { status: 409, doc: 'A regulator accepted or rejected this claim already, the other way.' },
  SURVEY_NOT_FOUND: { status: 404, doc: 'No survey with this id.' },
  RESPONSE_NOT_FOUND: { status: 404, doc: 'No survey response with this id.' },
  SURVEY_CONFIG_INVALID: {
    status: 400,
    doc: 'The survey configuration cannot make a survey (no section chosen, say).',
  },
  SURVEY_RESPONSE_INVALID: {
    status: 400,
    doc: 'The answers fail the template; `details` lists the failing question ids.',
  },
  SURVEY_RESPONSE_CONFLICT: { status: 409, doc: 'The household already answered this survey differently.' },
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
