import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Root logger. Secrets never reach it: every header or field that may carry one is redacted here,
 * so a careless `log.info({ headers })` cannot leak a key.
 */
export function createLogger(level: string, name = 'hearth', format: 'json' | 'pretty' = 'json'): Logger {
  return pino({
    name,
    // pino-pretty in pino's worker thread: the event loop still only hands lines over.
    ...(format === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } }
      : {}),
    level,
    base: { pid: process.pid },
    redact: {
      paths: [
        'authorization',
        'headers.authorization',
        '*.authorization',
        'headers["x-ucan-delegation"]',
        'headers["x-matrix-access-token"]',
        'pin',
        '*.pin',
        'apiKey',
        '*.apiKey',
        'mnemonic',
        '*.mnemonic',
      ],
      censor: '[redacted]',
    },
  });
}
