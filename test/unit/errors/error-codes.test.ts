import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../../src/errors/index.js';

describe('error code registry', () => {
  const readme = readFileSync('docs/api.md', 'utf8');
  const rows = [...readme.matchAll(/^\| `([A-Z_]+)`\s*\| (\d{3})\s*\|/gm)].map((m) => ({
    code: m[1],
    status: Number(m[2]),
  }));

  it('documents every code in the table of docs/api.md exactly once, with its status', () => {
    for (const [code, { status }] of Object.entries(errorCodes)) {
      const documented = rows.filter((r) => r.code === code);
      expect(documented, `${code} in docs/api.md`).toHaveLength(1);
      expect(documented[0]?.status, `${code} status`).toBe(status);
    }
  });

  it('documents no code that does not exist', () => {
    for (const row of rows) expect(Object.keys(errorCodes)).toContain(row.code);
  });

  it('gives every code a 4xx or 5xx status', () => {
    for (const { status } of Object.values(errorCodes)) expect(status >= 400 && status < 600).toBe(true);
  });
});
