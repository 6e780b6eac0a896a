import { defineConfig } from 'vitest/config';

/**
 * The unit suite alone: pure logic, no Redis, PostgreSQL or Docker (no global set-up starts
 * them). `npm run test:unit` runs it in seconds; `npm test` runs it with the integration suite.
 */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    pool: 'forks',
    reporters: ['default'],
  },
});
