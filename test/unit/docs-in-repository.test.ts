import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every file git tracks (or would), but dependencies and lock files. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' });
  return out.split('\n').filter((f) => f && !f.endsWith('package-lock.json') && existsSync(f));
}

describe('the documentation lives in the repository', () => {
  // Spelled in parts, so that this file does not name what it looks for.
  const outside = ['..', 'shared'].join('/');
  const design = new RegExp(`\\b${['DESIGN', 'md'].join('\\.')}\\b`);

  it('points nowhere outside it (not to the specs tree beside it, nor its design document)', () => {
    const pointing = repositoryFiles().filter((f) => {
      const text = readFileSync(f, 'utf8');
      return text.includes(outside) || design.test(text);
    });
    expect(pointing).toEqual([]);
  });

  it('keeps the README short, starting with a quick start', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Quick start');
    expect(readme).toContain('docker compose up');
    expect(readme).toContain('npm ci && npm test');
  });

  it('links only to files that exist, from the README and from docs/', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...repositoryFiles().filter((f) => /^docs\/.+\.md$/.test(f))]) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue; // a URL
        if (!existsSync(join(dirname(file), target))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only paths that exist, in the architecture and the glossary', () => {
    const missing: string[] = [];
    for (const file of ['docs/architecture.md', 'docs/glossary.md']) {
      const text = readFileSync(file, 'utf8');
      for (const [, path] of text.matchAll(/`((?:src|test|bench|docs|scripts|console|deploy)\/[^`\s*<>{}]+?)\/?`/g)) {
        if (!existsSync(path!)) missing.push(`${file} → ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('has an architecture, an operations and an API document', () => {
    for (const doc of ['docs/architecture.md', 'docs/operations.md', 'docs/api.md']) expect(existsSync(doc)).toBe(true);
    expect(readFileSync('docs/architecture.md', 'utf8')).toMatch(/## The data path of one request/);
  });
});
