// Copies the SQL migrations next to the compiled store, so `npm run migrate` works from dist/.
// A migration no longer in the sources is removed from dist/ too: one left behind by an earlier
// build (a migration tried and dropped) would be applied by every process started from dist/.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';

const from = 'src/store/migrations';
const to = 'dist/src/store/migrations';
mkdirSync(to, { recursive: true });
const sources = new Set(readdirSync(from));
for (const name of readdirSync(to)) if (!sources.has(name)) rmSync(`${to}/${name}`, { recursive: true });
cpSync(from, to, { recursive: true });
