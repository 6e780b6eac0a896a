import type { OutboxEffect } from './runtime/types.js';

/** An entry for the ledger, written to the outbox in the commit of the operation it records. */
export function ledgerEntry(type: string, fields: Record<string, unknown>): OutboxEffect {
  return { topic: 'ledger', payload: { type, ...fields } };
}
