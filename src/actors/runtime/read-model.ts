import type { BatchCommit } from './ports.js';
import type { ReadModel } from './types.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Checks a read model's table and column names once, at start: the store writes them into SQL
 * as identifiers, so they must be plain names (they come from code, never from a request).
 */
export function checkReadModel(type: string, view: ReadModel<never>): void {
  for (const name of [view.table, ...view.columns]) {
    if (!IDENTIFIER.test(name) || name === 'key') {
      throw new Error(`read model of ${type}: "${name}" is not a plain lower-case identifier (or is "key")`);
    }
  }
}

/** The read model rows a batch writes beside its snapshots (computed as each message was applied). */
export function viewOf(
  view: ReadModel<never> | undefined,
  rows: ReadonlyMap<string, Record<string, unknown> | undefined>,
): BatchCommit['view'] {
  if (!view) return undefined;
  return { table: view.table, columns: view.columns, rows: [...rows].map(([key, row]) => ({ key, row })) };
}
