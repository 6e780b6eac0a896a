import { startHearthOnMemory } from '../../src/hearth-on-memory.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { testPinKey } from '../support/test-pin-key.js';
import { voucherSchemeSuite } from '../support/voucher-scheme-suite.js';

/** The voucher scheme on hearth's memory adapters: no Redis, no PostgreSQL (hearth-on-memory.ts). */
voucherSchemeSuite('on memory', (adminKey, clock) =>
  startHearthOnMemory(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: '0',
      HEARTH_ADMIN_KEY: adminKey,
      PIN_ENCRYPTION_KEY: testPinKey,
      ACTOR_PARTITIONS: '4',
      // Never reached: the memory tier opens no connection (required by the schema).
      DATABASE_URL: 'postgres://unused.invalid/hearth',
      REDIS_URL: 'redis://unused.invalid:6379',
    }),
    createLogger('error', 'test'),
    { clock },
  ),
);
