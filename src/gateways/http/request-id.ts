import { randomUUID } from 'node:crypto';

const safe = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a caller's `x-request-id` when it is short and plain; otherwise makes a new one. */
export function requestIdFrom(header: string): string {
  return safe.test(header) ? header : randomUUID();
}
