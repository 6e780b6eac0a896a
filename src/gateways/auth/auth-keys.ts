import { productKey, type KeyPrefix } from '../../store/redis/keys.js';

/** The Redis keys of request limits and replay protection. */
export const authKeys = {
  /**
   * A request limit's state (GCRA: when its next request is due, ms), by kind (`key` an API key
   * id, `did` and `auth` digests of a DID and of a client address).
   */
  rateLimit: (at: KeyPrefix, kind: 'key' | 'did' | 'auth', id: string) => productKey(at, 'limit', [kind, id]),
  /** Marks a supplier message signature as used (replay protection), by its SHA-256. */
  seenSignature: (at: KeyPrefix, digest: string) => productKey(at, 'sig', [digest]),
};
