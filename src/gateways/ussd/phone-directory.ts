import type { Audience } from '../../actors/ussd/flows/kit.js';
import type { Sql } from '../../store/db.js';
import { TtlCache } from '../../ttl-cache.js';

export interface PhoneOwner {
  audience: Audience;
  /** The household's or supplier's DID. */
  did?: string;
}

/** How long a phone's owner is remembered, ms (registrations change rarely; a USSD hop is hot). */
const CACHE_MS = 5_000;

/** Who a phone number belongs to, through the voucher registries (households, then suppliers). */
export class PhoneDirectory {
  private readonly cache: TtlCache<string, PhoneOwner>;

  constructor(
    private readonly sql: Sql,
    now: () => number = Date.now,
  ) {
    this.cache = new TtlCache({ ttlMs: CACHE_MS, maxEntries: 50_000, now });
  }

  async owner(phone: string): Promise<PhoneOwner> {
    const hit = this.cache.get(phone);
    if (hit) return hit;
    const [row] = await this.sql<{ audience: 'household' | 'supplier'; did: string }[]>`
      SELECT 'household' AS audience, did FROM households WHERE phone_number = ${phone}
      UNION ALL
      SELECT 'supplier', did FROM suppliers WHERE phone_number = ${phone}
      LIMIT 1`;
    const owner: PhoneOwner = row ? { audience: row.audience, did: row.did } : { audience: 'unregistered' };
    this.cache.set(phone, owner);
    return owner;
  }
}
