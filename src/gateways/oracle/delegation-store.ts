import { seal } from '../../crypto/sealed.js';
import type { Sql } from '../../store/db.js';

/** 9999-12-31T23:59:59Z, in Unix seconds: the last instant every store and Date agree on. */
const LAST_TIMESTAMP_S = 253_402_300_799;

/** Stored delegations, sealed at rest; one per user DID (a new one replaces the old). */
export class DelegationStore {
  constructor(
    private readonly sql: Sql,
    private readonly secret: string,
  ) {}

  async put(did: string, raw: string, expiration: number | undefined): Promise<void> {
    const sealed = seal(this.secret, 'oracle-delegation', raw);
    // An expiry past what a timestamp holds (anyone may sign `exp: 1e14`) is no expiry at all.
    const expires = expiration === undefined || !(expiration <= LAST_TIMESTAMP_S) ? null : new Date(expiration * 1000);
    await this.sql`
      INSERT INTO oracle_delegations (did, sealed, expires_at) VALUES (${did}, ${sealed}, ${expires})
      ON CONFLICT (did) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, created_at = now()`;
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

  async remove(did: string): Promise<void> {
    await this.sql`DELETE FROM oracle_delegations WHERE did = ${did}`;
  }
}
