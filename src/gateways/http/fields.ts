import { z } from 'zod';

/**
 * Field schemas every product's request bodies share: a DID, a resource id, a decimal amount.
 * Each product's own body schemas sit beside its routes and build on these.
 */
export const did = z.string().regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]{1,256}$/, 'must be a DID such as did:key:z6Mk…');
export const resourceId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 letters, digits, . _ : -');

/** Decimal amounts: positive, finite, at most 6 decimal places (stored exactly as micro-units). */
export const amount = z
  .number()
  .positive()
  .max(1e9)
  .refine((n) => Math.round(n * 1e6) / 1e6 === n, 'has more than 6 decimal places');
