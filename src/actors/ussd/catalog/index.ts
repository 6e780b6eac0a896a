import { en, type Catalog, type TextKey } from './en.js';
import ny from './ny.json' with { type: 'json' };

export type { TextKey };

/**
 * Installed languages: English (en.ts, the reference, in code) and Nyanja (ny.json, a file a
 * translator edits without reading code: see its `$about`). Another is added with a JSON file
 * like ny.json and a line here; the main menu offers a language choice as soon as there are two.
 * The type checker refuses a file that lacks a key, and `npm test` one whose placeholders differ
 * from English's (catalog-check.ts).
 */
export const catalogs: Record<string, Catalog> = { en, ny: ny.texts satisfies Catalog };

/** Keys of a catalog file still marked as machine-drafted, awaiting a fluent speaker's review. */
export const needsReview: Record<string, readonly string[]> = { ny: ny.$needsReview };

export const DEFAULT_LANGUAGE = 'en';

/** A text in `lang` (English when missing), with `{name}` placeholders filled. */
export function t(lang: string, key: TextKey, params: Record<string, string | number> = {}): string {
  const text = (catalogs[lang] ?? en)[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
