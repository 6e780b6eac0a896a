import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/copy-sql.mjs', import.meta.url));

/** scripts/copy-sql.mjs, run in a scratch tree as the build runs it (from the project's root). */
describe('the build step that copies the migrations', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies every migration and removes one no longer in the sources', () => {
    root = mkdtempSync(join(tmpdir(), 'hearth-copy-sql-'));
    mkdirSync(join(root, 'src/store/migrations'), { recursive: true });
    mkdirSync(join(root, 'dist/src/store/migrations'), { recursive: true });
    writeFileSync(join(root, 'src/store/migrations/001_a.sql'), 'SELECT 1;');
    writeFileSync(join(root, 'src/store/migrations/002_b.sql'), 'SELECT 2;');
    // Left by an earlier build: a migration tried and dropped.
    writeFileSync(join(root, 'dist/src/store/migrations/003_dropped.sql'), 'DROP TABLE everything;');

    execFileSync(process.execPath, [script], { cwd: root });

    expect(readdirSync(join(root, 'dist/src/store/migrations')).sort()).toEqual(['001_a.sql', '002_b.sql']);
    expect(readFileSync(join(root, 'dist/src/store/migrations/002_b.sql'), 'utf8')).toBe('SELECT 2;');
  });
});
