import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under a folder, and the repository paths its relative imports name. */
function importsUnder(folder: string): Array<{ file: string; target: string }> {
  const out: Array<{ file: string; target: string }> = [];
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      out.push({ file, target: normalize(join(dirname(file), spec!)) });
    }
  }
  return out;
}

const products = ['src/gateways/', 'src/actors/voucher/', 'src/actors/claim/', 'src/actors/survey/'];
const moreProducts = ['src/actors/chat-session/', 'src/actors/ussd-session/', 'src/ledger/'];

describe('the folder rule (docs/architecture.md)', () => {
  it('keeps the actor runtime free of the store and of every product: it names ports instead', () => {
    const wrong = importsUnder('src/actors/runtime').filter(({ target }) =>
      [...products, ...moreProducts, 'src/store/'].some((p) => target.startsWith(p)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps the store free of every product', () => {
    const wrong = importsUnder('src/store').filter(({ target }) =>
      [...products, ...moreProducts].some((p) => target.startsWith(p)),
    );
    expect(wrong).toEqual([]);
  });
});
