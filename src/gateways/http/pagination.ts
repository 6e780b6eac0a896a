import { z } from 'zod';

/** `limit` (default 20, at most 100) and `offset` (default 0) for every list. */
export const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();
