import { z } from 'zod';

/** `limit` (default 20, at most 100) and `offset` (default 0) for every list. */
export const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

/** A page of a list as the routes answer it: `{items, total, limit, offset}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.strictObject({
    items: z.array(item),
    /** How many there are in all, past this page too. */
    total: z.number().int().min(0),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}
