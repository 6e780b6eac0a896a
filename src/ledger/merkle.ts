import { createHash } from 'node:crypto';

/**
 * Merkle trees as RFC 6962 (Certificate Transparency) defines them: leaves hashed with a 0x00
 * prefix, inner nodes with 0x01, and the tree split at the largest power of two below its size.
 * The prefixes keep a leaf from passing for an inner node; the split needs no padding leaf, so
 * no two different entry lists share a root (the duplicated-last-leaf flaw of Bitcoin's trees).
 */

const sha256 = (...parts: Array<Buffer | string>): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/** Hex SHA-256 of a leaf: 0x00 ‖ the entry's canonical bytes. */
export function leafHash(body: string): string {
  return sha256(LEAF, body).toString('hex');
}

function nodeHash(left: string, right: string): string {
  return sha256(NODE, Buffer.from(left, 'hex'), Buffer.from(right, 'hex')).toString('hex');
}

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The root over leaf hashes (hex). An empty tree's root is SHA-256 of nothing. */
export function merkleRoot(leaves: readonly string[]): string {
  if (leaves.length === 0) return sha256().toString('hex');
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k)));
}

/** One step of an inclusion proof: a sibling hash and the side it sits on. */
export interface ProofStep {
  side: 'left' | 'right';
  hash: string;
}

/** The audit path of leaf `index` (leaf to root order). */
export function inclusionPath(leaves: readonly string[], index: number): ProofStep[] {
  if (index < 0 || index >= leaves.length) throw new RangeError(`no leaf ${index} in a tree of ${leaves.length}`);
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return index < k
    ? [...inclusionPath(leaves.slice(0, k), index), { side: 'right', hash: merkleRoot(leaves.slice(k)) }]
    : [...inclusionPath(leaves.slice(k), index - k), { side: 'left', hash: merkleRoot(leaves.slice(0, k)) }];
}

/** Folds a leaf hash up its path; true when it lands on `root`. */
export function verifyInclusion(leaf: string, path: readonly ProofStep[], root: string): boolean {
  let h = leaf;
  for (const step of path) h = step.side === 'left' ? nodeHash(step.hash, h) : nodeHash(h, step.hash);
  return h === root;
}

/** Hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return sha256(text).toString('hex');
}
