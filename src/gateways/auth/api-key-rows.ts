import type { Sql } from '../../store/db.js';
import type { Role } from './principal.js';

/** A key as it is kept: the SHA-256 of its secret, never the secret. */
export interface StoredKey {
  id: string;
  hash: string;
  role: Role;
  did?: string;
  label?: string;
  createdAt: string;
  revokedAt?: string;
}

/**
 * Where API keys are kept: the `api_keys` table, or memory for the product tier's tests
 * (`memory-api-key-rows.ts`). Both pass test/support/api-key-rows-suite.ts.
 */
export interface ApiKeyRows {
  insert(key: Omit<StoredKey, 'createdAt' | 'revokedAt'>): Promise<StoredKey>;
  /** Every key, oldest first. */
  all(): Promise<StoredKey[]>;
  /** Marks a key revoked (the first revocation's time stays); undefined for an unknown id. */
  revoke(id: string): Promise<StoredKey | undefined>;
  get(id: string): Promise<StoredKey | undefined>;
}

interface Row {
  id: string;
  hash: string;
  role: Role;
  did: string | null;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

function stored(r: Row): StoredKey {
  return {
    id: r.id,
    hash: r.hash,
    role: r.role,
    ...(r.did ? { did: r.did } : {}),
    ...(r.label ? { label: r.label } : {}),
    createdAt: r.created_at.toISOString(),
    ...(r.revoked_at ? { revokedAt: r.revoked_at.toISOString() } : {}),
  };
}

/** API keys in PostgreSQL (migration 003). */
export function pgApiKeyRows(sql: Sql): ApiKeyRows {
  return {
    async insert(k) {
      const [row] = await sql<Row[]>`
        INSERT INTO api_keys (id, hash, role, did, label)
        VALUES (${k.id}, ${k.hash}, ${k.role}, ${k.did ?? null}, ${k.label ?? null})
        RETURNING *`;
      return stored(row!);
    },
    async all() {
      return (await sql<Row[]>`SELECT * FROM api_keys ORDER BY created_at, id`).map(stored);
    },
    async revoke(id) {
      const [row] = await sql<Row[]>`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING *`;
      return row ? stored(row) : undefined;
    },
    async get(id) {
      const [row] = await sql<Row[]>`SELECT * FROM api_keys WHERE id = ${id}`;
      return row ? stored(row) : undefined;
    },
  };
}
