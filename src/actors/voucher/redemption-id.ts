import { createHash } from 'node:crypto';
import { uuidShaped } from '../../common/uuid-shaped.js';

/**
 * A redemption's id, derived from its voucher and the request that made it (an Idempotency-Key's
 * request id, or one the server made): a retry of the request names the same redemption, so the
 * voucher finds it by its record's key and keeps no fact of the request. Different vouchers give
 * different ids for one request id.
 */
export function redemptionIdFor(voucherId: string, requestId: string): string {
  return uuidShaped(createHash('sha256').update(`hearth.redemption\u0000${voucherId}\u0000${requestId}`).digest('hex'));
}
