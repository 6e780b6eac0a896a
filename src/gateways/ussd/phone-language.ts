import { catalogs } from '../../actors/ussd/catalog/index.js';
import type { Sql } from '../../store/db.js';
import { TtlCache } from '../../ttl-cache.js';

/** How long a phone's language is remembered here, ms (as long as the phone directory's owner). */
const CACHE_MS = 5_000;

/**
 * The menu language a phone chose (in any session, through any gateway), so its next session
 * starts in it. Looked up only when more than one language is installed; a language no longer
 * installed is ignored.
 */
export class PhoneLanguage {
  private readonly cache: TtlCache<string, { lang: string | undefined }>;

  constructor(
    private readonly sql: Sql,
    now: () => number = Date.now,
  ) {
    this.cache = new TtlCache({ ttlMs: CACHE_MS, maxEntries: 50_000, now });
  }

  async of(phone: string): Promise<string | undefined> {
    if (Object.keys(catalogs).length < 2) return undefined;
    const hit = this.cache.get(phone);
    if (hit) return hit.lang;
    const [row] = await this.sql<{ language: string }[]>`
      SELECT language FROM ussd_preferences WHERE phone_number = ${phone}`;
    const lang = row && row.language in catalogs ? row.language : undefined;
    this.cache.set(phone, { lang });
    return lang;
  }

  async set(phone: string, lang: string): Promise<void> {
    await this.sql`
      INSERT INTO ussd_preferences (phone_number, language) VALUES (${phone}, ${lang})
      ON CONFLICT (phone_number) DO UPDATE SET language = EXCLUDED.language, updated_at = now()`;
    this.cache.set(phone, { lang });
  }
}
