/** UCAN authentication for the oracle API (spec 001 "Authentication"; wire reference "UCAN"). */
export { createUcanAuthenticator } from './authenticate-ucan.js';
export { INVALID_INVOCATION_MESSAGE, MISSING_UCAN_MESSAGE, type UcanFailureReason } from './errors.js';
export { memoryNonceGuard, redisNonceGuard } from './replay-guard.js';
export type { DelegationStoreCheck, UcanAuthenticator, UcanAuthOptions, UcanAuthResult, UcanAuthVia } from './types.js';
