import type { Sql } from '../../store/db.js';

export interface OperatorAction {
  id: string;
  at: string;
  keyId: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
}

/**
 * The record of what operators did (who, when, what): `operator_actions` (migration 017), or
 * memory for the product tier's tests (`memoryOperatorActions`).
 */
export interface OperatorActions {
  record(keyId: string, action: string, target: string, detail?: Record<string, unknown>): Promise<void>;
  /** The newest first. */
  list(limit: number): Promise<OperatorAction[]>;
}

export function pgOperatorActions(sql: Sql): OperatorActions {
  return {
    async record(keyId, action, target, detail = {}) {
      await sql`
        INSERT INTO operator_actions (key_id, action, target, detail)
        VALUES (${keyId}, ${action}, ${target}, ${sql.json(detail as never)})`;
    },
    async list(limit) {
      const rows = await sql<
        Array<{ id: string; at: Date; key_id: string; action: string; target: string; detail: Record<string, unknown> }>
      >`SELECT id::text, at, key_id, action, target, detail FROM operator_actions ORDER BY at DESC, id DESC LIMIT ${limit}`;
      return rows.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        keyId: r.key_id,
        action: r.action,
        target: r.target,
        detail: r.detail,
      }));
    },
  };
}

/** Operators' actions in memory. Not for deployments: nothing survives the process. */
export function memoryOperatorActions(now: () => number = Date.now): OperatorActions {
  const actions: OperatorAction[] = [];
  return {
    record(keyId, action, target, detail = {}) {
      const at = new Date(now()).toISOString();
      actions.push({ id: String(actions.length + 1), at, keyId, action, target, detail: structuredClone(detail) });
      return Promise.resolve();
    },
    list(limit) {
      return Promise.resolve(
        actions
          .slice(-limit)
          .reverse()
          .map((a) => structuredClone(a)),
      );
    },
  };
}
