import { COMPOSE_TRY_OUT_ADMIN_KEY, COMPOSE_TRY_OUT_PIN_KEY, ConfigError, loadConfig } from './config.js';
import { withDotEnv } from './env-file.js';
import { startHearth } from './hearth.js';
import { createLogger } from './log.js';
import { StartupError } from './errors/index.js';
import { MigrationError } from './store/migrate.js';

/** Startup failures the operator can fix print as one line on stderr and exit 1. */
function fail(err: unknown): never {
  const known = err instanceof ConfigError || err instanceof StartupError || err instanceof MigrationError;
  process.stderr.write(`hearth: ${known ? (err as Error).message : String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(withDotEnv(process.env));
  } catch (err) {
    fail(err);
  }
  const log = createLogger(config.LOG_LEVEL, 'hearth', config.LOG_FORMAT);
  if (config.PIN_ENCRYPTION_KEY === COMPOSE_TRY_OUT_PIN_KEY) {
    log.warn('PIN_ENCRYPTION_KEY is the docker-compose try-out key, known to anyone: set your own for real PINs');
  }
  if (config.HEARTH_ADMIN_KEY === COMPOSE_TRY_OUT_ADMIN_KEY) {
    log.warn(
      'HEARTH_ADMIN_KEY is the docker-compose try-out key, known to anyone: set your own before anyone else can reach this service',
    );
  }
  const hearth = await startHearth(config, log).catch(fail);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS + 5_000).unref();
    hearth
      .close()
      .then(() => {
        clearTimeout(force);
        log.info('stopped');
        process.exit(0);
      })
      .catch(fail);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
