import { defineConfig } from 'vitest/config';

/**
 * The product tier alone: hearth's routes and actors on its memory adapters (src/hearth-on-memory.ts),
 * no Redis, PostgreSQL or Docker. `npm run test:product` runs it in seconds; `npm test` runs it
 * with the rest, and test/integration runs the same suites on the real services.
 */
export default defineConfig({
  test: {
    include: ['test/product/**/*.test.ts'],
    pool: 'forks',
    reporters: ['default'],
  },
});
