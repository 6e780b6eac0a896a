import type { Sql } from '../../store/db.js';

export interface OperatorAction {
  id: string;
  at: string;
  keyId: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
}

/** The record of what operators did (who, when, what): `operator_actions`, migration 017. */
export class OperatorActions {
  constructor(private readonly sql: Sql) {}

  async record(keyId: string, action: string, target: string, detail: Record<string, unknown> = {}): Promise<void> {
    await this.sql`
      INSERT INTO operator_actions (key_id, action, target, detail)
      VALUES (${keyId}, ${action}, ${target}, ${this.sql.json(detail as never)})`;
  }

  /** The newest first. */
  async list(limit: number): Promise<OperatorAction[]> {
    const rows = await this.sql<
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
  }
}
