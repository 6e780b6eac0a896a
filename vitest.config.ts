import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start real clusters and wait through failovers (a minute or two each, mostly
 * waiting) go first: started last, they alone would add their whole length to the run (CI
 * measured the PostgreSQL failover file adding about three minutes when it happened to start
 * late). The rest keep vitest's own order.
 */
const longFirst = /(redis-cluster-(failover|resharding))\.test\.ts$/;

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => longFirst.test(f.moduleId)), ...sorted.filter((f) => !longFirst.test(f.moduleId))];
  }
}

/**
 * Files that run alone, after every other file. The PostgreSQL failover file: three PostgreSQL
 * servers, a monitor and twenty clients through two failovers take both of CI's cores, and beside
 * it the files that answer 1,000 concurrent requests failed (PostgreSQL's probe unanswered for
 * 500 ms); it tests PostgreSQL, so the Redis Cluster pass leaves it out. The PostgreSQL outage
 * file: it times recoveries to the second (200-700 ms alone, 1.0-1.4 s beside three busy files).
 */
const onCluster = process.env.HEARTH_TEST_REDIS === 'cluster';
const alone = [
  'test/integration/store/postgres-outage.test.ts',
  ...(onCluster ? [] : ['test/integration/store/postgres-failover.test.ts']),
];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true as const,
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/integration/store/postgres-failover.test.ts', ...alone],
          sequence: { sequencer: LongFilesFirst, groupOrder: 0 },
        },
      },
      // One file at a time.
      {
        extends: true as const,
        test: {
          name: 'alone',
          include: alone,
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
