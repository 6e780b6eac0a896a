import { LEDGER_TOPIC } from './runtime/ports.js';
import type { OutboxEffect } from './runtime/types.js';

/**
 * An entry for the ledger, written in the commit of the operation it records, once: the ledger
 * writer chains it into a block where it is (migration 026).
 */
export function ledgerEntry(type: string, fields: Record<string, unknown>): OutboxEffect {
  return { topic: LEDGER_TOPIC, payload: { type, ...fields } };
}
