import type { Audience } from '../../actors/ussd-session/flows/kit.js';
import type { Sql } from '../../store/db.js';

export interface PhoneOwner {
  audience: Audience;
  /** The household's or supplier's DID. */
  did?: string;
}

/** How long a phone's owner is remembered, ms (registrations change rarely; a USSD hop is hot). */
const CACHE_MS = 5_000;

/** Who a phone number belongs to, through the voucher registries (households, then suppliers). */
export class PhoneDirectory {
  private readonly cache = new Map<string, { owner: PhoneOwner; at: number }>();

  constructor(private readonly sql: Sql) {}

  async owner(phone: string): Promise<PhoneOwner> {
    const hit = this.cache.get(phone);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.owner;
    const [row] = await this.sql<{ audience: 'household' | 'supplier'; did: string }[]>`
      SELECT 'household' AS audience, did FROM households WHERE phone_number = ${phone}
      UNION ALL
      SELECT 'supplier', did FROM suppliers WHERE phone_number = ${phone}
      LIMIT 1`;
    const owner: PhoneOwner = row ? { audience: row.audience, did: row.did } : { audience: 'unregistered' };
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(phone, { owner, at: Date.now() });
    return owner;
  }
}
