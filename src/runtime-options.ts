import type { RuntimeOptions } from './actors/runtime/runtime.js';
import type { Config } from './config.js';

/** The worker role's runtime options from the configuration: one place for both composition roots. */
export function runtimeOptions(config: Config): RuntimeOptions {
  return {
    partitions: config.ACTOR_PARTITIONS,
    leaseTtlMs: config.LEASE_TTL_MS,
    batch: config.MAILBOX_BATCH,
    blockMs: 1_000,
    maxDeliveries: config.MAX_DELIVERIES,
    cacheSize: 10_000,
    trimEveryMs: 5_000,
  };
}
