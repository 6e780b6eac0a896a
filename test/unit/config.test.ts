import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { withDotEnv } from '../../src/env-file.js';

const minimal = {
  DATABASE_URL: 'postgres://u@h:5432/db',
  LOG_LEVEL: 'info',
  PIN_ENCRYPTION_KEY: '0123456789abcdef0123456789abcdef',
};

describe('loadConfig', () => {
  it('fills every default from a minimal environment', () => {
    const c = loadConfig(minimal);
    expect(c).toMatchObject({
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: 3000,
      NODE_ENV: 'development',
      ROLE: 'all',
      DATABASE_SCHEMA: 'public',
      REDIS_PREFIX: 'hearth',
      ACTOR_PARTITIONS: 16,
      HEARTH_DIAGNOSTICS: false,
      LEDGER_BACKEND: 'journal',
      ZM_SERVICE_CODES: ['*1234#'],
    });
  });

  it("refuses to start without a 32-character PIN key, with the spec's missing-key error", () => {
    const { PIN_ENCRYPTION_KEY: _drop, ...noKey } = minimal;
    expect(() => loadConfig(noKey)).toThrowError(
      /^invalid configuration: Missing PIN encryption key: PIN_ENCRYPTION_KEY is missing: set a 32-character key/,
    );
    expect(() => loadConfig({ ...minimal, PIN_ENCRYPTION_KEY: 'short' })).toThrowError(
      /^invalid configuration: Missing PIN encryption key: PIN_ENCRYPTION_KEY must be exactly 32 characters/,
    );
  });

  it('adds the variables of a .env file, the environment winning, and names a file it cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-env-'));
    const file = join(dir, '.env');
    writeFileSync(file, '# a comment\nDATABASE_URL=postgres://u@h:5432/fromfile\nPORT=3005\nLOG_LEVEL=warn\n');
    const env = withDotEnv({ PIN_ENCRYPTION_KEY: minimal.PIN_ENCRYPTION_KEY, PORT: '3001' }, file);
    const c = loadConfig(env);
    expect(c.DATABASE_URL).toBe('postgres://u@h:5432/fromfile');
    expect(c.LOG_LEVEL).toBe('warn');
    expect(c.PORT).toBe(3001); // set in the environment: the file does not override it
    expect(withDotEnv({ A: '1' }, join(dir, 'absent.env'))).toEqual({ A: '1' });
    expect(() => withDotEnv({}, dir)).toThrow(ConfigError); // a directory is no file
  });

  it('reads the USSD service codes as a list and refuses anything else', () => {
    expect(loadConfig({ ...minimal, ZM_SERVICE_CODES: '*1234#, *384*7#' }).ZM_SERVICE_CODES).toEqual([
      '*1234#',
      '*384*7#',
    ]);
    expect(() => loadConfig({ ...minimal, ZM_SERVICE_CODES: '1234' })).toThrowError(
      /ZM_SERVICE_CODES must be USSD codes/,
    );
  });

  it('requires a mnemonic with the cosmos ledger backend', () => {
    expect(() => loadConfig({ ...minimal, LEDGER_BACKEND: 'cosmos' })).toThrowError(/LEDGER_MNEMONIC is missing/);
  });

  it('coerces numbers and booleans from strings', () => {
    const c = loadConfig({ ...minimal, PORT: '8080', ACTOR_PARTITIONS: '4', HEARTH_DIAGNOSTICS: 'true' });
    expect(c.PORT).toBe(8080);
    expect(c.ACTOR_PARTITIONS).toBe(4);
    expect(c.HEARTH_DIAGNOSTICS).toBe(true);
  });

  it('names a missing DATABASE_URL and its fix in one line', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'info', PIN_ENCRYPTION_KEY: minimal.PIN_ENCRYPTION_KEY })).toThrowError(
      ConfigError,
    );
    try {
      loadConfig({ LOG_LEVEL: 'info', PIN_ENCRYPTION_KEY: minimal.PIN_ENCRYPTION_KEY });
    } catch (err) {
      const message = (err as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toMatch(/DATABASE_URL is missing: set it to a PostgreSQL URL/);
    }
  });

  it('names every bad variable at once', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', PORT: '70000', ROLE: 'boss' }),
    ).toThrowError(/DATABASE_URL must start with postgres.*LOG_LEVEL .*PORT .*ROLE /);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => loadConfig({ ...minimal, DATABASE_SCHEMA: 'x"; drop table y' })).toThrowError(
      /DATABASE_SCHEMA must be a lower-case SQL identifier/,
    );
  });

  it('refuses a Redis URL of another scheme', () => {
    expect(() => loadConfig({ ...minimal, REDIS_URL: 'http://localhost' })).toThrowError(
      /REDIS_URL must start with redis:\/\//,
    );
  });
});
