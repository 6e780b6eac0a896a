import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start real clusters and wait through failovers (a minute or two each, mostly
 * waiting) go first: started last, they alone would add their whole length to the run (CI
 * measured the PostgreSQL failover file adding about three minutes when it happened to start
 * late). The rest keep vitest's own order.
 */
const longFirst = /(postgres-failover|redis-cluster-(failover|resharding))\.test\.ts$/;

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => longFirst.test(f.moduleId)), ...sorted.filter((f) => !longFirst.test(f.moduleId))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Integration files isolate themselves (own Redis prefix and Postgres schema), so they run in parallel.
    pool: 'forks',
    // Integration files mostly wait (on sockets, timers, failovers), not compute: vitest's default
    // of one worker per core but one ran a single file at a time on CI's two cores (11 minutes a
    // pass); three at once took a pass to 3 minutes there, with the same results.
    maxWorkers: Math.max(3, availableParallelism()),
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    sequence: { sequencer: LongFilesFirst },
  },
});
