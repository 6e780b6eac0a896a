export { AppError, isAppError } from './app-error.js';
export { errorCodes, type ErrorCode } from './codes.js';
export { isStoreUnavailable } from './store-unavailable.js';
export { StartupError } from './startup-error.js';
