import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** What a process prints when it logs one line in `format` (a real process: pino-pretty runs in a thread). */
async function printed(format: 'json' | 'pretty'): Promise<string> {
  const script = `import('./src/log.ts').then(({ createLogger }) => {
    createLogger('info', 'hearth', '${format}').info({ pin: '48213', partitions: [0, 1] }, 'partitions taken');
  });`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
    env: { PATH: process.env.PATH ?? '' },
  });
  return stdout;
}

describe('LOG_FORMAT', () => {
  it('prints JSON lines by default, for a log pipeline', async () => {
    const line = JSON.parse((await printed('json')).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, msg: 'partitions taken', pin: '[redacted]' });
  });

  it('prints one readable line per entry with pretty, secrets still redacted', async () => {
    const out = await printed('pretty');
    expect(out).toMatch(/INFO.*partitions taken/);
    expect(out).toContain('[redacted]');
    expect(out).not.toContain('48213');
    expect(out).not.toContain('{"level"');
  });
});
