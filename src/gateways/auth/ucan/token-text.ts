/**
 * Limits that apply to a token before anything parses it, so that a hostile header costs a
 * length check and nothing more.
 */
import { failure, type UcanFailure } from './errors.js';

/** 64 KiB: a CAR with a few proofs is a couple of KiB; anything near this is not a real client. */
const MAX_TOKEN_CHARS = 64 * 1024;

export function checkTokenText(value: unknown): { ok: true; text: string } | UcanFailure {
  if (typeof value !== 'string') return failure('not-a-string');
  if (value.length > MAX_TOKEN_CHARS) return failure('too-large');
  const text = value.trim();
  if (text === '') return failure('missing');
  return { ok: true, text };
}

/** A JWT UCAN (ucans library): three base64url parts. A base64 CAR never contains a dot. */
export function looksLikeJwt(text: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(text);
}
