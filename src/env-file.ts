import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError } from './config.js';

/**
 * The environment with the variables of a `.env` file in the working directory added (spec 002:
 * "copy the example environment file to `.env`"). A variable set in the environment wins over
 * the file, so `PORT=3001 npm start` still means 3001. No file, no change.
 */
export function withDotEnv(env: NodeJS.ProcessEnv, path = '.env'): NodeJS.ProcessEnv {
  if (!existsSync(path)) return env;
  let fromFile: NodeJS.Dict<string>;
  try {
    fromFile = parseEnv(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      `${path} cannot be read: ${err instanceof Error ? err.message : String(err)}; fix or remove it`,
    );
  }
  return { ...fromFile, ...env };
}
