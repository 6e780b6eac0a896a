import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * AES-256-GCM under a key derived from a deployment secret and a purpose label, so one secret
 * (PIN_ENCRYPTION_KEY) yields a separate key per use (USSD text in Redis, stored delegations).
 * Output: base64url of nonce ‖ tag ‖ ciphertext.
 */
const derived = new Map<string, KeyObject>();

/** The purpose's key, derived once per process (a USSD hop seals and opens on every request). */
function keyOf(secret: string, purpose: string): KeyObject {
  const id = `${purpose}:${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = createSecretKey(createHash('sha256').update(`hearth:${purpose}:${secret}`).digest());
    derived.set(id, key);
  }
  return key;
}

/**
 * Random 96-bit nonces, drawn from the CSPRNG 4 KiB at a time: one `randomBytes` call per 341
 * seals instead of one per seal (it was the largest part of a seal on a USSD hop). A refill is a
 * new buffer, so a nonce handed out is never overwritten.
 */
const NONCE = 12;
let nonces = Buffer.alloc(0);
let next = 0;
function nonce(): Buffer {
  if (next + NONCE > nonces.length) {
    nonces = randomBytes(NONCE * 341);
    next = 0;
  }
  next += NONCE;
  return nonces.subarray(next - NONCE, next);
}

export function seal(secret: string, purpose: string, text: string): string {
  const iv = nonce();
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, purpose), iv);
  const body = cipher.update(text, 'utf8');
  cipher.final(); // GCM is a stream mode: final() adds no bytes, it computes the tag
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The text, or undefined when the seal is broken (another key or purpose, a tampered value). */
export function unseal(secret: string, purpose: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    // Nonce and a full 16-byte tag, or it is not ours: a shorter tag would be checked as such.
    if (raw.length < 28) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, purpose), raw.subarray(0, 12), {
      authTagLength: 16,
    });
    decipher.setAuthTag(raw.subarray(12, 28));
    // final() throws when the tag does not match.
    return decipher.update(raw.subarray(28), undefined, 'utf8') + decipher.final('utf8');
  } catch {
    return undefined;
  }
}
