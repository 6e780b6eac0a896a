// postinstall: guards a deferred write of the `postgres` driver (3.4.x) against a closed socket.
//
// postgres.js batches small writes behind a setImmediate; when the connection closes before it
// fires, `nextWrite` calls `socket.write` on null and throws from the immediate, which no caller
// can catch: the process dies (upstream porsager/postgres#1154, #1208; fixes proposed in #1168,
// #1176, #1209, not released as of 3.4.9). Seen here in the test that cuts Postgres off. The guard
// settles the pending queries with CONNECTION_CLOSED, as the driver does for any closed connection.
//
// A second guard: on a new connection the driver fetches the array types with a query whose
// promise nobody awaits (`return fetchArrayTypes()` in its ReadyForQuery handler); when the
// connection is destroyed first (a connect timeout against a network that drops packets), that
// promise rejects unhandled and fails the test run. The guard swallows it and fetches the types
// again on the connection's next start (the queries waiting on the connection fail on their own).
// Seen in CI in the test that blackholes PostgreSQL.
//
// A third guard, for several hosts in DATABASE_URL: with `target_session_attrs=read-write` the
// driver (3.4.x, `tryNext`) takes a connection as read-write whenever `default_transaction_read_only`
// is off, which a hot standby also reports, so a reconnection could land on a standby (a demoted
// primary restarted as one) and every write then failed. libpq's rule is the one applied: read-write
// means neither read-only by default nor in hot standby (`in_hot_standby`, reported by
// PostgreSQL 14 and later at connection start), and read-only means either.
//
// A fourth: a connection whose statement failed with SQLSTATE 25006 (read_only_sql_transaction)
// reached a server that is not the primary (any more): the guard closes it once the statement
// has been answered, so the pool's next connection goes through the host list again instead of
// failing every write on the same standby. The failed statement's caller is told as before (hearth
// answers 503: src/errors/store-unavailable.ts).
//
// A fifth: with several hosts, a socket error on a connection still counted as connecting is
// ignored, so that the connection closes and tries the next host (`error`: `if (connection.queue
// === queues.connecting && options.host[retries + 1]) return`). But a new connection runs its
// first statement while still counted as connecting, and an error then (a TCP reset: the server
// shut down mid-statement, as in a switchover) left that statement's promise unsettled for ever.
// Seen in hearth's failover test: a commit lane's first statement after a reconnection, with the
// account and conversion batches it carried and every saga behind them. The guard ignores the
// error only while no statement runs or waits on the connection (test:
// test/integration/store/driver-reset-first-query.test.ts).
//
// A sixth: a socket that fails (ECONNRESET) and then closes. `closed(hadError)` rejected the
// statements on the connection only when it closed without an error, trusting the error handler
// to have done it; but a statement handed to the connection between the error and the close (the
// pool still counted it open) was written to the dead socket and never settled. Reproduced on one
// host as on several, on the unpatched 3.4.9 too, with a proxy dropping a connection under a client
// that asks again at once; the likely cause of what hearth's failover test showed after a
// switchover: a worker stalled in its load, the ledger's anchoring stopped. The guard rejects whatever is on the connection when it
// closes, error or not (test: test/integration/store/driver-reset-pool.test.ts, which hangs in 2 runs of 3 without it).
//
// Idempotent; it fails the install loudly if the driver's code no longer looks as expected, so a
// new release is looked at rather than silently left unguarded.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';

const patches = [
  {
    mark: 'hearth: closed-socket guard',
    original: `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
    guarded: `  function nextWrite(fn) {
    // hearth: closed-socket guard (see hearth's scripts/patch-postgres.mjs)
    if (socket === null) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`,
  },
  {
    mark: 'hearth: array-types guard',
    original: `        return fetchArrayTypes()
`,
    guarded: `        // hearth: array-types guard (see hearth's scripts/patch-postgres.mjs)
        return fetchArrayTypes().catch(() => { needsTypes = true })
`,
  },
  {
    mark: 'hearth: hot-standby guard',
    original: `      (x === 'read-write' && xs.default_transaction_read_only === 'on') ||
      (x === 'read-only' && xs.default_transaction_read_only === 'off') ||`,
    guarded: `      // hearth: hot-standby guard (see hearth's scripts/patch-postgres.mjs)
      (x === 'read-write' && (xs.default_transaction_read_only === 'on' || xs.in_hot_standby === 'on')) ||
      (x === 'read-only' && xs.default_transaction_read_only === 'off' && xs.in_hot_standby !== 'on') ||`,
  },
  {
    mark: 'hearth: read-only guard',
    original: `    query = results = errorResponse = null
    result = new Result()
    connectTimer.cancel()
`,
    guarded: `    // hearth: read-only guard (see hearth's scripts/patch-postgres.mjs)
    const readOnlyServer = !initial && errorResponse && errorResponse.code === '25006'
    query = results = errorResponse = null
    result = new Result()
    connectTimer.cancel()
    if (readOnlyServer) return terminate()
`,
  },
  {
    mark: 'hearth: socket-error guard',
    original: `    if (connection.queue === queues.connecting && options.host[retries + 1])
      return
`,
    guarded: `    // hearth: socket-error guard (see hearth's scripts/patch-postgres.mjs)
    if (connection.queue === queues.connecting && options.host[retries + 1] && !query && sent.length === 0)
      return
`,
  },
  {
    mark: 'hearth: closed-after-error guard',
    original: `    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))
`,
    guarded: `    // hearth: closed-after-error guard (see hearth's scripts/patch-postgres.mjs)
    if (query || sent.length) error(Errors.connection('CONNECTION_CLOSED', options, socket))
`,
  },
];

let root;
try {
  // The package exports no package.json; its CommonJS entry is <root>/cjs/src/index.js.
  root = dirname(dirname(dirname(createRequire(import.meta.url).resolve('postgres'))));
} catch {
  process.exit(0); // not installed (yet): nothing to guard
}
for (const file of ['src/connection.js', 'cjs/src/connection.js'].map((f) => join(root, f))) {
  if (!existsSync(file)) continue;
  let text = readFileSync(file, 'utf8');
  for (const p of patches) {
    if (text.includes(p.mark)) continue;
    if (!text.includes(p.original)) {
      process.stderr.write(
        `patch-postgres: ${file} lacks the code "${p.mark}" guards; check the driver version against the guard\n`,
      );
      process.exit(1);
    }
    text = text.replace(p.original, p.guarded);
    process.stdout.write(`patch-postgres: ${p.mark} added to ${file}\n`);
  }
  writeFileSync(file, text);
}
