/** UCAN authentication for the oracle API (spec 001 "Authentication"; wire reference "UCAN"). */
export { createUcanAuthenticator } from './authenticate-ucan.js';
export { INVALID_INVOCATION_MESSAGE, MISSING_UCAN_MESSAGE } from './errors.js';
export { memoryNonceGuard, redisNonceGuard } from './replay-guard.js';
export type { UcanAuthenticator, UcanAuthOptions, UcanAuthResult } from './types.js';
