import { z } from 'zod';
import { amount, did, resourceId } from '../http/fields.js';
import { ed25519FromDidKey } from '../auth/did-key.js';
import type { Certificate, Household, Product, Supplier } from '../../store/registries/records.js';

const phone = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in international format, e.g. +260971234567');
const base64url32 = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a 32-byte Ed25519 public key in base64url')
  .refine((k) => Buffer.from(k, 'base64url').length === 32, 'must be 32 bytes');

export const householdCreate = z.object({ did, phoneNumber: phone.optional() }).strict();
export const householdUpdate = z.object({ phoneNumber: phone }).strict();

const supplierFields = {
  did,
  name: z.string().trim().min(1).max(200),
  authorized: z.boolean(),
  publicKey: base64url32.optional(),
  phoneNumber: phone.optional(),
};

/** A supplier's key comes from its did:key, or is given; when both, they must agree. */
export const supplierCreate = z
  .object(supplierFields)
  .strict()
  .transform((s, ctx) => {
    const fromDid = ed25519FromDidKey(s.did);
    const given = s.publicKey;
    if (fromDid && given && Buffer.from(given, 'base64url').compare(Buffer.from(fromDid)) !== 0) {
      ctx.addIssue({ code: 'custom', path: ['publicKey'], message: 'does not match the key in the did:key' });
      return z.NEVER;
    }
    const publicKey = given ?? (fromDid ? Buffer.from(fromDid).toString('base64url') : undefined);
    if (!publicKey) {
      ctx.addIssue({ code: 'custom', path: ['publicKey'], message: 'is required unless did is an Ed25519 did:key' });
      return z.NEVER;
    }
    return { ...s, publicKey };
  });
export const supplierUpdate = z
  .object({ name: supplierFields.name, authorized: z.boolean(), phoneNumber: phone })
  .partial()
  .strict();

export const productCreate = z
  .object({ id: resourceId, name: z.string().trim().min(1).max(200), approved: z.boolean() })
  .strict();
export const productUpdate = z
  .object({ name: z.string().trim().min(1).max(200), approved: z.boolean() })
  .partial()
  .strict();

const monitoringPlan = z
  .object({
    approvedProducts: z.array(resourceId).max(1000),
    acceptedCredentialTypes: z.array(z.string().min(1).max(200)).min(1).max(100),
    claimWindowDays: z.number().int().min(1).max(3650),
  })
  .strict();

export const certificateCreate = z
  .object({
    id: resourceId,
    projectId: did,
    verifiedReduction: amount,
    status: z.enum(['verified', 'pending', 'revoked']),
    monitoringPlan,
  })
  .strict();
export const certificateUpdate = z
  .object({ status: z.enum(['verified', 'pending', 'revoked']), monitoringPlan, verifiedReduction: amount })
  .partial()
  .strict();

/** When the registry wrote a record (store/registries/registry.ts, fromRow): on every record it answers. */
const stamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() };
type Stamped<T> = T & { createdAt: string; updatedAt: string };

/**
 * The records as the registries answer them: the stored fields (an empty one left out) and the
 * stamps. `satisfies` ties each to its record type, so a field added there must be added here.
 */
const householdRecord = z.strictObject({
  did: z.string(),
  phoneNumber: z.string().optional(),
  ...stamps,
}) satisfies z.ZodType<Stamped<Household>>;
const supplierRecord = z.strictObject({
  did: z.string(),
  name: z.string(),
  authorized: z.boolean(),
  publicKey: z.string(),
  phoneNumber: z.string().optional(),
  ...stamps,
}) satisfies z.ZodType<Stamped<Supplier>>;
const productRecord = z.strictObject({
  id: z.string(),
  name: z.string(),
  approved: z.boolean(),
  ...stamps,
}) satisfies z.ZodType<Stamped<Product>>;
const certificateRecord = z.strictObject({
  id: z.string(),
  projectId: z.string(),
  verifiedReduction: z.number(),
  status: z.enum(['verified', 'pending', 'revoked']),
  monitoringPlan: z.strictObject({
    approvedProducts: z.array(z.string()),
    acceptedCredentialTypes: z.array(z.string()),
    claimWindowDays: z.number().int(),
  }),
  ...stamps,
}) satisfies z.ZodType<Stamped<Certificate>>;

/** Each registry the API serves, by its singular name: its record as answered. */
export const registryRecords = {
  household: householdRecord,
  supplier: supplierRecord,
  product: productRecord,
  certificate: certificateRecord,
} as const;
