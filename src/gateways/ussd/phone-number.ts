import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * A phone number as an aggregator sends it, in E.164 with its `+` (as the registries hold
 * numbers), or undefined when it is no phone number. Aggregators send `+260971234567`,
 * `260971234567` or the national `0971234567`: one person, one PIN, one rate limit. A national
 * number is read in `country` (USSD_DEFAULT_COUNTRY); digits without a `+` that are no national
 * number there are read as international (a roaming or foreign SIM). Checked for a possible
 * length, not against the current numbering plan: a range opened after this library's release
 * must still reach its menu.
 */
export function normalizePhone(raw: string, country: CountryCode): string | undefined {
  const text = raw.trim();
  if (text.length === 0 || text.length > 32) return undefined;
  const national = parsePhoneNumberFromString(text, country);
  if (national?.isPossible()) return national.number;
  if (/^[0-9]+$/.test(text)) {
    const international = parsePhoneNumberFromString(`+${text}`);
    if (international?.isPossible()) return international.number;
  }
  return undefined;
}
