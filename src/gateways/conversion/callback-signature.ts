import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors/index.js';

/** How far a callback's timestamp may be from our clock: a captured callback replays no later. */
const TOLERANCE_S = 300;

/** The signature a counterparty sends: `sha256=` and the hex HMAC of `<timestamp>.<body>`. */
function callbackSignature(secret: string, timestamp: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/**
 * Checks `X-Hearth-Timestamp` (unix seconds) and `X-Hearth-Signature` on a counterparty's
 * callback, as payment webhooks are checked: the MAC covers the timestamp, so an old callback
 * cannot be sent again with a fresh one, and is compared in constant time.
 */
export function checkCallbackSignature(
  secret: string | undefined,
  headers: Record<string, string | undefined>,
  body: Buffer,
  nowMs: number,
): void {
  const timestamp = headers['x-hearth-timestamp'] ?? '';
  const given = headers['x-hearth-signature'] ?? '';
  const fail = (why: string): never => {
    throw new AppError('CALLBACK_SIGNATURE_INVALID', why);
  };
  if (!/^\d{1,12}$/.test(timestamp)) fail('X-Hearth-Timestamp must be the unix time in seconds');
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_S) fail('X-Hearth-Timestamp is more than 5 minutes off');
  if (!/^sha256=[0-9a-f]{64}$/.test(given)) fail('X-Hearth-Signature must be sha256=<64 hex digits>');
  // A secret sealed under another deployment key cannot be read: no callback verifies.
  if (secret === undefined) fail('this counterparty secret can no longer be read; register it again');
  const expected = Buffer.from(callbackSignature(secret!, timestamp, body));
  if (!timingSafeEqual(expected, Buffer.from(given))) fail('X-Hearth-Signature does not verify');
}
