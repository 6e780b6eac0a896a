export { AppError, isAppError } from './app-error.js';
export { errorCodes, statusOf, type ErrorCode } from './codes.js';
