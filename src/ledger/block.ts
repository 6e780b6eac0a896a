import { canonicalJson } from '../common/canonical-json.js';
import { sha256Hex } from './merkle.js';

/** What a block's hash covers. Changing any of it, or any entry (via the root), changes the hash. */
export interface BlockHeader {
  height: number;
  prevHash: string;
  merkleRoot: string;
  entryCount: number;
  /** ISO 8601 with milliseconds, as stored. */
  createdAt: string;
}

/** The hash of the first block's predecessor. */
export const GENESIS_HASH = '0'.repeat(64);

export function blockHash(h: BlockHeader): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      height: h.height,
      prevHash: h.prevHash,
      merkleRoot: h.merkleRoot,
      entryCount: h.entryCount,
      createdAt: h.createdAt,
    }),
  );
}

/** An entry as the ledger records it: what happened, by which actor, from which message. */
export interface EntrySource {
  id: string;
  actorType: string;
  actorKey: string;
  msgId: string;
  seq: number;
  payload: unknown;
  createdAt: string;
}

/** The canonical body of an entry (hashed into its leaf, stored as text). */
export function entryBody(e: EntrySource): string {
  return canonicalJson({
    entryId: e.id,
    actor: { type: e.actorType, key: e.actorKey },
    msgId: e.msgId,
    seq: e.seq,
    payload: e.payload,
    createdAt: e.createdAt,
  });
}
