import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FlowContext } from './flows/kit.js';

/** The PIN as typed, turned into its keyed hash (salted by the session's phone) before it is kept. */
export type MacPin = (pin: string, c: FlowContext) => string;

/**
 * A PIN as the session keeps it: HMAC-SHA256 under PIN_ENCRYPTION_KEY. The session's snapshot,
 * its replies and the gateway's work orders carry this, never the digits; without the key it
 * says nothing (a plain hash of a 5-digit PIN would be reversed by trying all 100,000).
 */
export function pinMac(key: string, phone: string, pin: string): string {
  // Salted by the phone: two phones with the same PIN never carry the same hash.
  return createHmac('sha256', key).update(`hearth-ussd-pin:${phone}:${pin}`).digest('base64url');
}

/** Whether two PIN hashes are the same, in constant time (a PIN entered twice, say). */
export function samePinMac(a: string, b: unknown): boolean {
  if (typeof b !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
