import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMPOSE_TRY_OUT_ADMIN_KEY, COMPOSE_TRY_OUT_PIN_KEY, configSchema, loadConfig } from '../../src/config.js';

interface ComposeService {
  image?: string;
  restart?: string;
  healthcheck?: { test: string[]; interval?: string };
  build?: string | { context: string };
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, ComposeService> };

/** What `docker compose` makes of `${VAR:-default}` when VAR is not set in the shell. */
const interpolated = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, (_, fallback: string) => fallback)]),
  );

describe('docker-compose.yml', () => {
  const hearth = compose.services.hearth;

  it('gives the hearth service an environment the config schema accepts', () => {
    expect(hearth?.environment).toBeDefined();
    const config = loadConfig(interpolated(hearth?.environment ?? {}));
    expect(config.PIN_ENCRYPTION_KEY).toHaveLength(32);
    // The process warns when it runs on this fallback: the two must not drift apart.
    expect(config.PIN_ENCRYPTION_KEY).toBe(COMPOSE_TRY_OUT_PIN_KEY);
    expect(config.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(config.REDIS_URL).toBe('redis://redis:6379');
    // On loopback only: the try-out admin key is public.
    expect(hearth?.ports).toEqual([`127.0.0.1:${config.PORT}:${config.PORT}`]);
  });

  it('gives a try-out a working admin key, the one the process warns about', () => {
    const config = loadConfig(interpolated(hearth?.environment ?? {}));
    expect(config.HEARTH_ADMIN_KEY).toBe(COMPOSE_TRY_OUT_ADMIN_KEY);
    // The shell's own key wins over the try-out one.
    expect(hearth?.environment?.HEARTH_ADMIN_KEY).toBe(`\${HEARTH_ADMIN_KEY:-${COMPOSE_TRY_OUT_ADMIN_KEY}}`);
    expect(readFileSync('src/main.ts', 'utf8')).toMatch(/HEARTH_ADMIN_KEY === COMPOSE_TRY_OUT_ADMIN_KEY/);
  });

  it('restarts the service and checks its health on /health', () => {
    expect(hearth?.restart).toBe('unless-stopped');
    expect(hearth?.healthcheck?.test.join(' ')).toContain(`/health`);
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/health/m);
  });

  it('builds the image without the benchmark', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).not.toMatch(/^COPY bench/m);
    const build = JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { include: string[] };
    expect(build.include).toEqual(['src']);
  });

  it('sets only variables the schema knows', () => {
    const known = Object.keys(configSchema.shape);
    for (const name of Object.keys(hearth?.environment ?? {})) expect(known).toContain(name);
  });

  it('starts Redis 7 and PostgreSQL 16 and waits for them to be healthy', () => {
    expect(compose.services.redis?.image).toMatch(/^redis:7/);
    expect(compose.services.postgres?.image).toMatch(/^postgres:16/);
    expect(hearth?.depends_on).toEqual({
      redis: { condition: 'service_healthy' },
      postgres: { condition: 'service_healthy' },
    });
  });

  it('builds from a glibc Node 20 image (uWebSockets.js does not load on musl)', () => {
    expect(hearth?.build).toBe('.');
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toBe('node:20-bookworm-slim');
  });

  it("copies the console's files into the image, beside the build the gateway serves them from", () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toMatch(/^COPY console \.\/console$/m);
    expect(readFileSync('console/index.html', 'utf8')).toContain('/console/app.js');
  });

  it('copies the install scripts before the install (its postinstall guards the postgres driver)', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const scripts = dockerfile.indexOf('COPY scripts ./scripts');
    expect(scripts).toBeGreaterThan(-1);
    expect(scripts).toBeLessThan(dockerfile.indexOf('RUN npm ci'));
  });
});

describe('the postgres driver', () => {
  it('is installed with the guards of scripts/patch-postgres.mjs, in both builds', () => {
    for (const file of ['node_modules/postgres/src/connection.js', 'node_modules/postgres/cjs/src/connection.js']) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).toContain('hearth: closed-socket guard');
      expect(text, file).toContain("error(Errors.connection('CONNECTION_CLOSED', options))");
      // The array types' query on a new connection: its failure no longer goes unhandled.
      expect(text, file).toContain('hearth: array-types guard');
      expect(text, file).toContain('return fetchArrayTypes().catch(() => { needsTypes = true })');
      expect(text, file).not.toMatch(/return fetchArrayTypes\(\)\n/);
      // A socket error while the first statement runs fails it (test/integration/store/driver-reset-first-query.test.ts).
      expect(text, file).toContain('hearth: socket-error guard');
      expect(text, file).toContain('options.host[retries + 1] && !query && sent.length === 0');
      // A close after a socket error rejects what is on the connection (driver-reset-pool.test.ts).
      expect(text, file).toContain('hearth: closed-after-error guard');
      expect(text, file).not.toContain('!hadError && (query || sent.length)');
    }
  });
});

describe('.env.example', () => {
  it('lists every variable of the config schema', () => {
    const text = readFileSync('.env.example', 'utf8');
    for (const name of Object.keys(configSchema.shape)) expect(text).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
