import { autoFailoverAvailable, startAutoFailover } from '../../test/support/pg-auto-failover.js';
import { cleanup, type BenchEnv } from '../lib/env.js';
import type { LevelResult } from '../lib/measure.js';
import { vacuumAnalyze } from '../lib/quiet.js';
import { echoAsk, startClient, startWorker } from './runtime.js';
import { redemptions } from './vouchers.js';

/** The echo ask and spread redemptions at 64, on one PostgreSQL and on a pg_auto_failover pair. */
export interface ReplicationResult {
  single: { echo: LevelResult; redeem: LevelResult };
  pair: { echo: LevelResult; redeem: LevelResult };
}

/**
 * What synchronous replication costs (issue 40): a pg_auto_failover formation on loopback (a
 * monitor, a primary and its synchronous standby, started as the tests start it), measured back to
 * back with the machine's own PostgreSQL, each with a worker and a schema of its own. On one
 * machine the standby's CPU competes with everything else, and the network is loopback: a
 * deployment's standby on another machine adds a network round trip to each commit instead.
 * Undefined where pg_auto_failover is not installed or the run is not root (said so).
 */
export async function replicationCost(
  env: BenchEnv,
  progress: (line: string) => void,
): Promise<ReplicationResult | undefined> {
  if (!autoFailoverAvailable()) {
    progress('  skipped: pg_auto_failover is not installed (or the run is not root)');
    return undefined;
  }
  const measure = async (on: BenchEnv): Promise<{ echo: LevelResult; redeem: LevelResult }> => {
    const worker = await startWorker(on);
    const session = await startClient(on);
    try {
      const [echo] = await echoAsk(on, session.client, [64]);
      const { spread } = await redemptions(on, session.client, 64, () => vacuumAnalyze(on, progress));
      return { echo: echo!, redeem: spread };
    } finally {
      await session.close();
      await worker.stop();
      await cleanup(on);
    }
  };
  const single = await measure({ ...env, prefix: `${env.prefix}one`, schema: `${env.schema}_one` });
  progress(
    `  one PostgreSQL: echo ${Math.round(single.echo.perSecond)}/s, redemptions ${Math.round(single.redeem.perSecond)}/s`,
  );
  const formation = await startAutoFailover();
  if (!formation) return undefined;
  try {
    // The driver's own test for the bench's direct connections (cleanup, vacuum); hearth adds it itself.
    const databaseUrl = `${formation.url}?target_session_attrs=read-write`;
    const pair = await measure({ ...env, databaseUrl, prefix: `${env.prefix}pair`, schema: `${env.schema}_pair` });
    progress(`  pair: echo ${Math.round(pair.echo.perSecond)}/s, redemptions ${Math.round(pair.redeem.perSecond)}/s`);
    return { single, pair };
  } finally {
    await formation.stop();
  }
}
