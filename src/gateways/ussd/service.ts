/**
 * The USSD channel as other products see it: its live sessions (the console's USSD page). Another
 * product imports USSD through this file only (test/unit/import-rules.test.ts).
 */
export { LiveSessions, type LiveSession } from './live-sessions.js';
