import { seal, unseal } from '../../crypto/sealed.js';

/**
 * The aggregator's `text` as it travels through Redis (mailbox entries, dead letters): sealed
 * under PIN_ENCRYPTION_KEY, because it carries the PIN digits the user typed. Only the
 * session's `decide` opens it.
 */
export const sealText = (secret: string, text: string): string => seal(secret, 'ussd-text', text);

/** The text, or undefined when the seal is broken (another key, a tampered entry). */
export const openText = (secret: string, sealed: string): string | undefined => unseal(secret, 'ussd-text', sealed);
