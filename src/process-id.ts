import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A process-unique id that is also a valid Redis key part. */
export function processId(role: string): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .slice(0, 40) || 'host';
  return `${role}-${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
