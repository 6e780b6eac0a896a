/**
 * A base64 CAR (how ixo clients send ucanto delegations and invocations: `archive()` bytes,
 * `Buffer#toString('base64')`) → a ucanto Delegation view. Every failure is a reason, never a throw.
 */
import { createHash } from 'node:crypto';
import { CAR, Delegation, type API } from '@ucanto/core';
import { failure, type UcanFailure } from './errors.js';

/** Standard or URL-safe alphabet, padding optional; Node's decoder alone would skip junk silently. */
const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** sha2-256 multihash code: the only hash ucanto uses for UCAN blocks. */
const SHA256_CODE = 0x12;

function decodeBase64(text: string): Uint8Array | undefined {
  if (!base64Pattern.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length > 0 ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : undefined;
}

/**
 * The CAR reader trusts the CIDs the archive claims. Checking every block against its CID makes the
 * proofs the ones the signed UCAN links to, rather than whatever the sender filed under those CIDs.
 */
function blocksMatchTheirCids(bytes: Uint8Array): boolean | undefined {
  let decoded: ReturnType<typeof CAR.decode>;
  try {
    decoded = CAR.decode(bytes);
  } catch {
    return undefined;
  }
  for (const block of decoded.blocks.values()) {
    const { code, digest } = block.cid.multihash;
    if (code !== SHA256_CODE) return false;
    const actual = createHash('sha256').update(block.bytes).digest();
    if (!actual.equals(digest)) return false;
  }
  return true;
}

export async function extractUcan(text: string): Promise<{ ok: true; ucan: API.Delegation } | UcanFailure> {
  const bytes = decodeBase64(text);
  if (!bytes) return failure('not-base64');
  const intact = blocksMatchTheirCids(bytes);
  if (intact === undefined) return failure('not-a-car');
  if (!intact) return failure('block-hash-mismatch');
  const extracted = await Delegation.extract(bytes);
  if (!extracted.ok) return failure('not-a-car');
  const ucan = extracted.ok;
  try {
    // The view decodes (and schema-checks) the UCAN lazily; force it here so later reads can't throw.
    void ucan.data;
    return { ok: true, ucan };
  } catch {
    return failure('not-a-ucan');
  }
}
