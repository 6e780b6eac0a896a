import type { Catalog } from './en.js';

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

/**
 * What is wrong with a catalog against the reference (English): a key missing or extra, or a
 * text whose placeholders are not the reference's. Empty when it is complete.
 */
export function catalogProblems(reference: Catalog, catalog: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(reference) as Array<keyof Catalog>) {
    const text = catalog[key];
    if (typeof text !== 'string' || text.trim() === '') {
      problems.push(`${key}: missing`);
      continue;
    }
    const want = placeholders(reference[key]).join(',');
    const got = placeholders(text).join(',');
    if (want !== got) problems.push(`${key}: placeholders {${got}} instead of {${want}}`);
  }
  for (const key of Object.keys(catalog)) if (!(key in reference)) problems.push(`${key}: not a key of the menus`);
  return problems;
}
