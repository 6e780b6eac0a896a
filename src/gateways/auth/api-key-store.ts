import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { roles, type Principal, type Role } from './principal.js';
import { TtlCache } from '../../ttl-cache.js';
import type { ApiKeyRows, StoredKey } from './api-key-rows.js';

export interface ApiKeyRecord {
  id: string;
  role: Role;
  did?: string;
  label?: string;
  createdAt: string;
  revokedAt?: string;
}

/** A key's record as the API answers it (never its secret or hash). */
export const apiKeyRecordSchema = z.strictObject({
  id: z.string(),
  role: z.enum(roles),
  did: z.string().optional(),
  label: z.string().optional(),
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().optional(),
}) satisfies z.ZodType<ApiKeyRecord>;

/** A key reads `hk_<id>_<secret>`: the id finds the row, the secret is compared by its hash. */
const keyShape = /^hk_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

function toRecord({ hash: _hash, ...record }: StoredKey): ApiKeyRecord {
  return record;
}

/**
 * API keys (in PostgreSQL, or memory in the product tier), never in clear: only the SHA-256 of the secret is stored (the secret is
 * 256 random bits, so no slow hash is needed). Lookups are cached for `cacheMs`, which is also
 * the longest a revoked key keeps working on a busy gateway.
 */
export class ApiKeyStore {
  private readonly cache: TtlCache<string, { row: StoredKey | undefined }>;

  constructor(
    private readonly rows: ApiKeyRows,
    /** SHA-256 of HEARTH_ADMIN_KEY, the bootstrap admin key; undefined when none is configured. */
    private readonly bootstrapHash: string | undefined,
    cacheMs = 5_000,
    /** Milliseconds now, for the cache (hearth's clock, so a test can move it). */
    now: () => number = Date.now,
  ) {
    this.cache = new TtlCache({ ttlMs: cacheMs, maxEntries: 10_000, now });
  }

  async create(
    role: Role,
    did: string | undefined,
    label: string | undefined,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const row = await this.rows.insert({
      id,
      hash: hashSecret(secret),
      role,
      ...(did ? { did } : {}),
      ...(label ? { label } : {}),
    });
    return { key: `hk_${id}_${secret}`, record: toRecord(row) };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.rows.all()).map(toRecord);
  }

  async revoke(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.rows.revoke(id);
    this.cache.delete(id);
    return row ? toRecord(row) : undefined;
  }

  /** The principal of a presented key, or undefined when it is unknown, malformed or revoked. */
  async verify(presented: string): Promise<Principal | undefined> {
    if (this.bootstrapHash && sameHash(hashSecret(presented), this.bootstrapHash)) {
      return { keyId: 'bootstrap', role: 'admin' };
    }
    const m = keyShape.exec(presented);
    if (!m) return undefined;
    const [, id = '', secret = ''] = m;
    const row = await this.lookup(id);
    if (!row || row.revokedAt || !sameHash(hashSecret(secret), row.hash)) return undefined;
    return { keyId: row.id, role: row.role, ...(row.did ? { did: row.did } : {}) };
  }

  private async lookup(id: string): Promise<StoredKey | undefined> {
    const hit = this.cache.get(id);
    if (hit) return hit.row;
    const row = await this.rows.get(id);
    this.cache.set(id, { row });
    return row;
  }
}
