import { startHearth } from '../../../../src/hearth.js';
import { isolated } from '../../../support/isolated.js';
import { voucherSchemeSuite } from '../../../support/voucher-scheme-suite.js';

/** The voucher scheme on Redis and PostgreSQL: the answers the memory tier (test/product) is held to. */
voucherSchemeSuite('on Redis and PostgreSQL', async (adminKey, clock) => {
  const env = await isolated();
  const hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4' }), env.log, {
    clock,
  });
  return {
    port: hearth.port,
    close: async () => {
      await hearth.close();
      await env.cleanup();
    },
  };
});
