import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` refuses a lock file that does not match package.json, or that lacks a package some
 * entry names, even an optional build for another platform (rollup and unrs-resolver list one per
 * platform). A lock file made where a registry lacked some of those installs here but fails on
 * every fresh clone; these checks catch that without a network.
 */
interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as LockEntry;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/** Where npm looks for `name` from the package at `from`: its own node_modules, then each parent's. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return true;
    if (!dir) return false;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent === -1 ? '' : dir.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('is a version 3 lock file', () => {
    expect(lock.lockfileVersion).toBe(3);
  });

  it('records exactly the dependencies package.json declares', () => {
    const root = lock.packages[''] ?? {};
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
  });

  it('holds every dependency of every locked package, optional platform builds included', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path !== '' && !path.includes('node_modules/')) continue; // workspace links
      const required = { ...entry.dependencies, ...entry.optionalDependencies };
      for (const [name, meta] of Object.entries(entry.peerDependencies ?? {})) {
        if (!entry.peerDependenciesMeta?.[name]?.optional && !(name in required)) required[name] = meta;
      }
      for (const name of Object.keys(required)) {
        if (!resolves(path === '' ? '' : posix.normalize(path), name))
          missing.push(`${name} (for ${path || 'hearth'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
