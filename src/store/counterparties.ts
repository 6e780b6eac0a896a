import { randomBytes } from 'node:crypto';
import { seal, unseal } from '../crypto/sealed.js';
import type { Sql } from './db.js';

export type CounterpartyKind = 'payment-processor' | 'exchange-operator';

export interface Counterparty {
  id: string;
  kind: CounterpartyKind;
  name: string;
  createdAt: string;
}

const PURPOSE = 'counterparty-secret';

/**
 * Payment processors and exchange operators, and the secret each signs its callbacks with. The
 * secret is made here (256 random bits), shown once to the admin who registers the counterparty,
 * and kept sealed under the deployment secret (PIN_ENCRYPTION_KEY): never in clear at rest.
 */
export class Counterparties {
  constructor(
    private readonly sql: Sql,
    private readonly deploymentSecret: string,
  ) {}

  /** Registers one; answers its record and the secret, or undefined when the id is taken. */
  async create(c: Omit<Counterparty, 'createdAt'>): Promise<{ record: Counterparty; secret: string } | undefined> {
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const sealed = seal(this.deploymentSecret, PURPOSE, secret);
    const [row] = await this.sql<{ created_at: Date }[]>`
      INSERT INTO counterparties (id, kind, name, secret_sealed) VALUES (${c.id}, ${c.kind}, ${c.name}, ${sealed})
      ON CONFLICT (id) DO NOTHING RETURNING created_at`;
    return row ? { record: { ...c, createdAt: row.created_at.toISOString() }, secret } : undefined;
  }

  async list(): Promise<Counterparty[]> {
    const rows = await this.sql<{ id: string; kind: CounterpartyKind; name: string; created_at: Date }[]>`
      SELECT id, kind, name, created_at FROM counterparties ORDER BY id`;
    return rows.map((r) => ({ id: r.id, kind: r.kind, name: r.name, createdAt: r.created_at.toISOString() }));
  }

  async get(id: string): Promise<Counterparty | undefined> {
    return (await this.withSecret(id))?.record;
  }

  /** The counterparty and its secret, to check a callback (undefined: none, or sealed under another key). */
  async withSecret(id: string): Promise<{ record: Counterparty; secret: string | undefined } | undefined> {
    const [r] = await this.sql<
      { id: string; kind: CounterpartyKind; name: string; created_at: Date; secret_sealed: string }[]
    >`SELECT id, kind, name, created_at, secret_sealed FROM counterparties WHERE id = ${id}`;
    if (!r) return undefined;
    return {
      record: { id: r.id, kind: r.kind, name: r.name, createdAt: r.created_at.toISOString() },
      secret: unseal(this.deploymentSecret, PURPOSE, r.secret_sealed),
    };
  }
}
