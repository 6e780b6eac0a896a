import type { HttpResponse } from 'uWebSockets.js';
import { AppError } from '../../errors/index.js';
import type { ClientGone } from './client-gone.js';

/**
 * Starts reading a request body at once (uWebSockets.js delivers it only to a handler attached
 * in the synchronous part of the route) and resolves when it is complete. Past `limit` bytes it
 * rejects with BODY_TOO_LARGE and ignores the rest.
 */
export function readBody(
  res: HttpResponse,
  limit: number,
  declaredLength: number,
  client: ClientGone,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A client that hangs up mid-body must not leave the request (and shutdown) waiting forever.
    client.onGone(() => reject(new AppError('BAD_REQUEST_ABORTED', 'the client closed the connection')));
    if (declaredLength > limit) {
      reject(tooLarge(limit));
      res.onData(() => undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      // uWS neuters the ArrayBuffer after this callback: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
  });
}

function tooLarge(limit: number): AppError {
  return new AppError('BODY_TOO_LARGE', `the body is larger than ${limit} bytes`, { limit });
}
