/**
 * What operators' tools share with the console and the key routes: the record of operator
 * actions and the redaction of message bodies. Other folders import operators through this file
 * only (test/unit/import-rules.test.ts).
 */
export type { OperatorActions } from './operator-actions.js';
export { redactedBody } from './redact.js';
