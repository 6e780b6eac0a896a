import { en, type Catalog, type TextKey } from './en.js';

export type { TextKey };

/**
 * Installed languages. Another is added with a file like `en.ts` (every key, translated) and a
 * line here; the main menu offers a language choice as soon as there are two.
 */
export const catalogs: Record<string, Catalog> = { en };

export const DEFAULT_LANGUAGE = 'en';

/** A text in `lang` (English when missing), with `{name}` placeholders filled. */
export function t(lang: string, key: TextKey, params: Record<string, string | number> = {}): string {
  const text = (catalogs[lang] ?? en)[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
