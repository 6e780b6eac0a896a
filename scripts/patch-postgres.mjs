// postinstall: guards a deferred write of the `postgres` driver (3.4.x) against a closed socket.
//
// postgres.js batches small writes behind a setImmediate; when the connection closes before it
// fires, `nextWrite` calls `socket.write` on null and throws from the immediate, which no caller
// can catch: the process dies (upstream porsager/postgres#1154, #1208; fixes proposed in #1168,
// #1176, #1209, not released as of 3.4.9). Seen here in the test that cuts Postgres off. The guard
// settles the pending queries with CONNECTION_CLOSED, as the driver does for any closed connection.
// Idempotent; it fails the install loudly if the driver's code no longer looks as expected, so a
// new release is looked at rather than silently left unguarded.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';

const MARK = 'hearth: closed-socket guard';
const ORIGINAL = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`;
const GUARDED = `  function nextWrite(fn) {
    // ${MARK} (see hearth's scripts/patch-postgres.mjs)
    if (socket === null) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`;

let root;
try {
  // The package exports no package.json; its CommonJS entry is <root>/cjs/src/index.js.
  root = dirname(dirname(dirname(createRequire(import.meta.url).resolve('postgres'))));
} catch {
  process.exit(0); // not installed (yet): nothing to guard
}
for (const file of ['src/connection.js', 'cjs/src/connection.js'].map((f) => join(root, f))) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  if (text.includes(MARK)) continue;
  if (!text.includes(ORIGINAL)) {
    process.stderr.write(
      `patch-postgres: ${file} has no unguarded nextWrite; check the driver version against the guard\n`,
    );
    process.exit(1);
  }
  writeFileSync(file, text.replace(ORIGINAL, GUARDED));
  process.stdout.write(`patch-postgres: guarded nextWrite in ${file}\n`);
}
