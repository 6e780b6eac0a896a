/**
 * `npm run lint:openapi`: Redocly lints the OpenAPI document hearth serves (rules: redocly.yaml).
 *
 * The document is built from the routes a running gateway registers (src/gateways/docs/routes.ts),
 * so this starts one from the TypeScript sources (CI lints before it builds): ROLE=gateway on a
 * free port, in a PostgreSQL schema and under a Redis prefix of its own, both dropped after. It
 * needs DATABASE_URL and REDIS_URL (the environment or .env), as the tests do. Redocly runs
 * offline: no telemetry, no update check.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectRedis, createRedis } from '../src/store/redis/redis.js';
import { loadConfig } from '../src/config.js';
import { withDotEnv } from '../src/env-file.js';
import { startHearth } from '../src/hearth.js';
import { createLogger } from '../src/log.js';
import { createSql } from '../src/store/db.js';
import { unlinkPrefixed } from './unlink-prefixed.js';

async function servedDocument(): Promise<string> {
  const env = withDotEnv(process.env);
  const id = randomBytes(4).toString('hex');
  const config = loadConfig({
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    DATABASE_SCHEMA: `openapi_lint_${id}`,
    REDIS_PREFIX: `openapi-lint-${id}`,
    // Secrets of this throw-away gateway only: nothing it seals outlives its schema.
    PIN_ENCRYPTION_KEY: randomBytes(16).toString('hex'),
    ROLE: 'gateway',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    // Every route a gateway can serve is linted.
    HEARTH_DIAGNOSTICS: 'true',
  });
  const log = createLogger(config.LOG_LEVEL, 'lint-openapi');
  const sql = createSql({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, max: 1 });
  const redis = await connectRedis(createRedis(config.REDIS_URL, 'lint-openapi'), config.REDIS_URL);
  try {
    const hearth = await startHearth(config, log);
    try {
      const answer = await fetch(`http://127.0.0.1:${hearth.port}/docs/openapi.json`);
      if (answer.status !== 200) throw new Error(`GET /docs/openapi.json answered ${answer.status}`);
      // Indented: Redocly's messages then point at a line of their own.
      return JSON.stringify(await answer.json(), null, 2);
    } finally {
      await hearth.close();
    }
  } finally {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${config.DATABASE_SCHEMA}" CASCADE`);
    await sql.end({ timeout: 5 });
    await unlinkPrefixed(redis, `${config.REDIS_PREFIX}:`);
    redis.disconnect();
  }
}

// Redocly's CLI is found by its package's name with `require.resolve`, which lets knip see it used.
const require = createRequire(import.meta.url);

function lint(documentPath: string): number {
  const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'lint', documentPath, '--config', 'redocly.yaml'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
    },
  });
  return run.status ?? 1;
}

const dir = mkdtempSync(join(tmpdir(), 'hearth-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, await servedDocument());
  process.exitCode = lint(file);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
