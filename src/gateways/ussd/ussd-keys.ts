import { fnv1a } from '../../actors/runtime/partitioning.js';
import { productKey, type KeyPrefix } from '../../store/redis/keys.js';

/** Shards of the live USSD index: fixed, since a session's shard must not change while it lives. */
export const USSD_SHARDS = 16;

/**
 * The Redis keys of the USSD channel. Every hop of every session writes the live index, so it is
 * sharded (by the session id's FNV-1a): no one key, nor one cluster node, takes them all; a
 * shard's index and summaries share a hash tag (`{ussd:s3}`), as one script writes both.
 */
export const ussdKeys = {
  shardOf: (sessionId: string): number => fnv1a(sessionId) % USSD_SHARDS,
  /** Sorted set of one shard's live USSD sessions, scored by their last activity (ms). */
  live: (at: KeyPrefix, shard: number) => productKey(at, 'ussd', ['live'], `s${shard}`),
  /** Hash of one shard's live USSD session summaries, by session id. */
  summaries: (at: KeyPrefix, shard: number) => productKey(at, 'ussd', ['sessions'], `s${shard}`),
  /** Requests of one phone in one minute (rate limit); the phone is given as a digest. */
  rate: (at: KeyPrefix, phoneDigest: string, minute: number) => productKey(at, 'ussd', ['rate', phoneDigest, minute]),
  /** Unknown voucher codes a supplier's phone entered on one UTC day (its digest, as `rate`). */
  unknownCodes: (at: KeyPrefix, phoneDigest: string, day: number) =>
    productKey(at, 'ussd', ['unknown-codes', phoneDigest, day]),
};
