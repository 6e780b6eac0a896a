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
const moreProducts = [
  'src/actors/chat/',
  'src/actors/ussd/',
  'src/ledger/',
  'src/actors/account/',
  'src/actors/pool/',
  'src/actors/conversion/',
  'src/actors/order/',
];

/** The actor folders: every folder of src/actors but the runtime. */
const actorFolders = readdirSync('src/actors', { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'runtime')
  .map((e) => `src/actors/${e.name}/`);

describe('the folder rule (docs/architecture.md)', () => {
  it('keeps the actor runtime free of the store and of every product: it names ports instead', () => {
    const wrong = importsUnder('src/actors/runtime').filter(({ target }) =>
      [...products, ...moreProducts, 'src/store/'].some((p) => target.startsWith(p)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps the actor runtime free of Redis: its adapter lives in src/store/redis', () => {
    const clients = /from '(ioredis|redis-parser|node:net|node:tls)'/;
    const wrong = readdirSync('src/actors/runtime', { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name))
      .filter((f) => clients.test(readFileSync(f, 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('keeps the store free of every product', () => {
    const wrong = importsUnder('src/store').filter(({ target }) =>
      [...products, ...moreProducts].some((p) => target.startsWith(p)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps each actor folder to itself, the runtime, the effects and the common floor', () => {
    const allowed = (folder: string, target: string) =>
      target.startsWith(folder) ||
      target.startsWith('src/actors/runtime/') ||
      target.startsWith('src/common/') ||
      target.startsWith('src/crypto/') ||
      ['src/actors/tell-effect.js', 'src/actors/ledger-effect.js', 'src/actors/pending-credit.js'].includes(target);
    const wrong = actorFolders.flatMap((folder) =>
      importsUnder(folder).filter(({ target }) => !allowed(folder, target)),
    );
    expect(wrong).toEqual([]);
  });

  it('lets a product reach another product only through its service.ts', () => {
    // The shared edge (http, auth, docs) is no product: every product may use it.
    const productFolders = [
      'voucher',
      'claim',
      'survey',
      'registries',
      'ledger',
      'ussd',
      'conversion',
      'oracle',
      'console',
      'operators',
    ];
    const productOf = (path: string) => /^src\/gateways\/([a-z-]+)\//.exec(path)?.[1];
    const wrong = importsUnder('src/gateways').filter(({ file, target }) => {
      const from = productOf(file);
      const to = productOf(target);
      return (
        // The files directly under src/gateways compose products' routes (products.ts all of them,
        // scheme-routes.ts the voucher scheme's, for both tiers): the ones above the products.
        from !== undefined &&
        to !== undefined &&
        productFolders.includes(to) &&
        to !== from &&
        target !== `src/gateways/${to}/service.js`
      );
    });
    expect(wrong).toEqual([]);
  });

  it('keeps the common floor free of every other folder of src', () => {
    const wrong = importsUnder('src/common').filter(
      ({ target }) => target.startsWith('src/') && !target.startsWith('src/common/'),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps config and the ledger free of the gateways, and config free of the runtime', () => {
    const wrong = [
      ...importsUnder('src/ledger').filter(({ target }) => target.startsWith('src/gateways/')),
      ...['src/config.ts']
        .flatMap((f) =>
          [...readFileSync(f, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) => ({
            file: f,
            target: normalize(join(dirname(f), m[1]!)),
          })),
        )
        .filter(({ target }) => target.startsWith('src/gateways/') || target.startsWith('src/actors/')),
    ];
    expect(wrong).toEqual([]);
  });

  it('writes the outbox from the store alone (snapshot-store.ts for actors, outbox-writes.ts for the rest)', () => {
    const writers = readdirSync('src', { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name))
      .filter((f) => /INSERT INTO outbox\b/.test(readFileSync(f, 'utf8')));
    expect(writers.sort()).toEqual(['src/store/outbox-writes.ts', 'src/store/snapshot-store.ts']);
  });
});
