import { z } from 'zod';
import { amount } from '../http/fields.js';
import { entryProofSchema } from '../../ledger/ledger-reads.js';

export const itmoClaimBody = z.object({ amount }).strict();

export const certificateBody = z
  .object({
    claims: z.array(z.string().min(1).max(200)).min(1).max(500),
    /** The national registry that issues the certificate. */
    registry: z.string().trim().min(1).max(200),
    /** The serial numbers the registry assigned, as it writes them. */
    serialRange: z.object({ from: z.string().trim().min(1).max(100), to: z.string().trim().min(1).max(100) }).strict(),
    /** The mitigation outcome purchase agreement the units are sold under. */
    agreement: z.object({ id: z.string().trim().min(1).max(200), buyer: z.string().trim().min(1).max(200) }).strict(),
    fiatReceived: z
      .object({ amount, currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD') })
      .strict(),
  })
  .strict();

export const itmoClaimSchema = z.strictObject({
  id: z.string(),
  accountDid: z.string(),
  /** ITMO units: one per CARBON burned. */
  units: z.number(),
  status: z.enum(['claimed', 'certifying', 'certified']),
  certificate: z.string().optional(),
  createdAt: z.iso.datetime(),
  /**
   * The on-chain transfer proof: the ledger entry that burned the CARBON, with its block and
   * Merkle inclusion path (and the block's chain transaction on the cosmos backend); null until
   * the entry is in a block (at most LEDGER_BATCH_MS).
   */
  transferProof: entryProofSchema.nullable(),
});

export const itmoCertificateSchema = z.strictObject({
  id: z.string(),
  accountDid: z.string(),
  claims: z.array(z.string()),
  units: z.number(),
  registry: z.string(),
  serialRange: z.strictObject({ from: z.string(), to: z.string() }),
  agreement: z.strictObject({ id: z.string(), buyer: z.string() }),
  fiatReceived: z.strictObject({ amount: z.number(), currency: z.string() }),
  status: z.enum(['requested', 'approved', 'rejected']),
  decision: z.strictObject({ by: z.string(), at: z.iso.datetime(), reason: z.string().optional() }).optional(),
  createdAt: z.iso.datetime(),
});
