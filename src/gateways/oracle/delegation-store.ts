import { seal } from '../../crypto/sealed.js';
import type { Sql } from '../../store/db.js';
import { TtlCache } from '../../ttl-cache.js';

/** 9999-12-31T23:59:59Z, in Unix seconds: the last instant every store and Date agree on. */
const LAST_TIMESTAMP_S = 253_402_300_799;

/** Stored delegations, sealed at rest; one per user DID (a new one replaces the old). */
export class DelegationStore {
  private readonly revoked: RevokedDelegations;

  constructor(
    private readonly sql: Sql,
    private readonly secret: string,
    now: () => number = Date.now,
  ) {
    this.revoked = new RevokedDelegations(sql, now);
  }

  async put(did: string, raw: string, cid: string, expiration: number | undefined): Promise<void> {
    const sealed = seal(this.secret, 'oracle-delegation', raw);
    // An expiry past what a timestamp holds (anyone may sign `exp: 1e14`) is no expiry at all.
    const expires = expiration === undefined || !(expiration <= LAST_TIMESTAMP_S) ? null : new Date(expiration * 1000);
    await this.sql`
      INSERT INTO oracle_delegations (did, sealed, cid, expires_at) VALUES (${did}, ${sealed}, ${cid}, ${expires})
      ON CONFLICT (did) DO UPDATE
      SET sealed = EXCLUDED.sealed, cid = EXCLUDED.cid, expires_at = EXCLUDED.expires_at, created_at = now()`;
  }

  /** Whether the DID has a delegation that has not expired, and when it does. */
  async status(did: string, now: Date): Promise<{ authorized: boolean; expiration?: number }> {
    const [row] = await this.sql<{ expires_at: Date | null }[]>`
      SELECT expires_at FROM oracle_delegations WHERE did = ${did}`;
    if (!row) return { authorized: false };
    if (row.expires_at === null) return { authorized: true };
    const expiration = Math.floor(row.expires_at.getTime() / 1000);
    return row.expires_at > now ? { authorized: true, expiration } : { authorized: false, expiration };
  }

  /**
   * Revokes the caller's stored delegation: gone from the store, and refused as a credential
   * (`x-ucan-delegation`, a socket's `ucanDelegation`) from now on: at once by this process, by
   * the others within {@link REVOCATION_CACHE_MS}.
   */
  async remove(did: string): Promise<void> {
    const rows = await this.sql<{ cid: string }[]>`
      WITH gone AS (DELETE FROM oracle_delegations WHERE did = ${did} RETURNING did, cid, expires_at),
      kept AS (
        INSERT INTO oracle_revoked_delegations (cid, did, expires_at)
        SELECT cid, did, expires_at FROM gone WHERE cid IS NOT NULL
        ON CONFLICT (cid) DO NOTHING)
      SELECT cid FROM gone WHERE cid IS NOT NULL`;
    for (const { cid } of rows) this.revoked.remember(cid);
  }

  /** Whether the delegation with this id was revoked (see {@link RevokedDelegations}). */
  isRevoked(cid: string): Promise<boolean> {
    return this.revoked.isRevoked(cid);
  }
}

/** How long a gateway may answer "not revoked" from memory (a revocation elsewhere shows after it). */
export const REVOCATION_CACHE_MS = 5_000;

/**
 * Which delegations were revoked, by what they signed (AcceptedDelegation.id; older rows by
 * content id): one primary-key probe, remembered for
 * {@link REVOCATION_CACHE_MS} (a client sends its delegation with every request). A revocation
 * made through this process is remembered at once, as API-key revocation is.
 */
export class RevokedDelegations {
  /** Revoked for good (a revocation is final); not revoked for REVOCATION_CACHE_MS. */
  private readonly seen: TtlCache<string, boolean>;

  constructor(
    private readonly sql: Sql,
    now: () => number = Date.now,
  ) {
    this.seen = new TtlCache({ ttlMs: REVOCATION_CACHE_MS, maxEntries: 10_000, now });
  }

  async isRevoked(cid: string): Promise<boolean> {
    const hit = this.seen.get(cid);
    if (hit !== undefined) return hit;
    const [row] = await this.sql<{ cid: string }[]>`SELECT cid FROM oracle_revoked_delegations WHERE cid = ${cid}`;
    this.note(cid, row !== undefined);
    return row !== undefined;
  }

  remember(cid: string): void {
    this.note(cid, true);
  }

  private note(cid: string, revoked: boolean): void {
    // A look-up that began before this process revoked it must not answer "not revoked" after.
    if (!revoked && this.seen.get(cid)) return;
    this.seen.set(cid, revoked, revoked ? Infinity : REVOCATION_CACHE_MS);
  }
}
