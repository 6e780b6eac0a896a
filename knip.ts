import type { KnipConfig } from 'knip';

/**
 * Dead code and unused dependencies (`npm run deadcode`, part of `npm run lint`). Knip follows
 * imports from these entries; a file, export or package nothing reaches from them is reported.
 */
const config: KnipConfig = {
  // src/main.ts is package.json's `main`; test files, their global set-up and the configs of
  // vitest and eslint come from knip's plugins for those tools.
  entry: [
    'src/store/migrate-cli.ts',
    'src/ledger/verify-cli.ts',
    'bench/run.ts',
    'bench/probe.ts',
    'bench/cluster.ts',
    // Started by URL on a thread of its own (src/ledger/ledger-on-thread.ts), never imported.
    'src/ledger/ledger-thread.ts',
    // Started by path in a child process (bench/suites/limits.ts, sockets.ts), never imported.
    'bench/servers/*.ts',
    'scripts/*.mjs',
  ],
  project: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.mjs', 'scripts/**/*.ts'],
  vitest: { config: ['vitest.config.ts', 'vitest.unit.config.ts', 'vitest.product.config.ts'] },
  eslint: { config: ['eslint.config.js'] },
  ignoreDependencies: [
    // LOG_FORMAT=pretty: pino loads it by name in its worker thread (src/log.ts).
    'pino-pretty',
  ],
  // Redis's server, from the machine (Debian's redis-server package), not from npm: the
  // cluster suites start real nodes with them (test/support/redis-cluster.ts).
  // promtool, from Debian's prometheus package (.ci/run installs it), checks deploy/'s alert rules.
  // runuser starts pg_autoctl as the postgres user (test/support/pg-auto-failover.ts).
  ignoreBinaries: ['redis-server', 'promtool', 'runuser'],
};

export default config;
