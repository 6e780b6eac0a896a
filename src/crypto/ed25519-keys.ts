import { createPublicKey, type KeyObject } from 'node:crypto';
import { TtlCache } from '../ttl-cache.js';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow. */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
/** Keys kept imported (callers: suppliers, oracle users); past this the oldest goes. */
const imported = new TtlCache<string, KeyObject>({ maxEntries: 10_000 });

/**
 * A raw 32-byte Ed25519 public key as a node:crypto KeyObject, imported once: importing costs
 * more than verifying with it (measured: a third of each UCAN check when 1,000 arrive at once).
 */
export function ed25519PublicKey(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString('base64url');
  let key = imported.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' });
    imported.set(id, key);
  }
  return key;
}
