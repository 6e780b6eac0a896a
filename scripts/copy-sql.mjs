// Copies the SQL migrations next to the compiled store, so `npm run migrate` works from dist/.
import { cpSync, mkdirSync } from 'node:fs';

mkdirSync('dist/src/store/migrations', { recursive: true });
cpSync('src/store/migrations', 'dist/src/store/migrations', { recursive: true });
