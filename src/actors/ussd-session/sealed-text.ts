import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The aggregator's `text` as it travels through Redis (mailbox entries, dead letters): sealed
 * with AES-256-GCM under a key derived from PIN_ENCRYPTION_KEY, because it carries the PIN
 * digits the user typed. Only the session's `decide` opens it.
 */
const keyOf = (secret: string): Buffer => createHash('sha256').update(`hearth-ussd-text:${secret}`).digest();

export function sealText(secret: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The text, or undefined when the seal is broken (another key, a tampered entry). */
export function openText(secret: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
