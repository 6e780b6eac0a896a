#!/usr/bin/env node
/*
 * `hearth` (package.json `bin`; `npx hearth …`): the operators' command line. It talks to a
 * running gateway over its API (HEARTH_URL, HEARTH_API_KEY), to Redis for `tail`, and runs the
 * database tools for `migrate` and `ledger verify`. See usage.ts for the commands.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withDotEnv } from '../env-file.js';
import { ApiFailure, callApi, type ApiTarget } from './api.js';
import { table } from './table.js';
import { tail } from './tail.js';
import { USAGE, UsageError } from './usage.js';

const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, notFound: 4 } as const;

type Print = (text: string) => void;

/** `type/partition/id` as the API names a dead letter. */
function letterRef(text: string): { type: string; partition: number; id: string } {
  const m = /^([A-Za-z0-9_-]+)\/(\d+)\/(\d+-\d+)$/.exec(text);
  if (!m)
    throw new UsageError(
      `"${text}" is no dead letter: write it as type/partition/id, such as counter/1/1700000000000-0`,
    );
  return { type: m[1]!, partition: Number(m[2]), id: m[3]! };
}

/** Runs one of the database tools (migrate, ledger verify) as the npm scripts do, in this process's runtime. */
function runTool(file: string, args: readonly string[]): Promise<number> {
  const here = fileURLToPath(import.meta.url);
  const script = fileURLToPath(new URL(`../${file}${here.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? EXIT.failed));
  });
}

async function run(argv: readonly string[], print: Print): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
      role: { type: 'string' },
      did: { type: 'string' },
      label: { type: 'string' },
      type: { type: 'string' },
      limit: { type: 'string' },
      count: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const env = withDotEnv(process.env);
  const target: ApiTarget = {
    url: values.url ?? env.HEARTH_URL ?? 'http://127.0.0.1:3000',
    key: values['api-key'] ?? env.HEARTH_API_KEY,
  };
  const [command, sub, ...rest] = positionals;
  const show = (data: unknown, rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]) =>
    print(values.json ? `${JSON.stringify(data, null, 2)}\n` : table(rows, columns));
  const limit = values.limit === undefined ? '' : `limit=${encodeURIComponent(values.limit)}`;

  if (values.help || command === undefined || command === 'help') {
    print(USAGE);
    return command === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'keys list': {
      const { items } = (await callApi(target, 'GET', '/v1/api-keys')) as { items: Array<Record<string, unknown>> };
      show({ items }, items, ['id', 'role', 'did', 'label', 'createdAt', 'revokedAt']);
      return EXIT.ok;
    }
    case 'keys create': {
      if (!values.role)
        throw new UsageError('keys create needs --role (admin, implementer, regulator, supplier, household)');
      const made = (await callApi(target, 'POST', '/v1/api-keys', {
        role: values.role,
        ...(values.did ? { did: values.did } : {}),
        ...(values.label ? { label: values.label } : {}),
      })) as Record<string, unknown>;
      if (values.json) print(`${JSON.stringify(made, null, 2)}\n`);
      else
        print(`${table([made], ['id', 'role', 'did', 'label'])}key (shown once, keep it now): ${String(made.key)}\n`);
      return EXIT.ok;
    }
    case 'keys revoke': {
      const id = rest[0];
      if (!id) throw new UsageError('keys revoke needs the key id (hearth keys list shows it)');
      const revoked = await callApi(target, 'DELETE', `/v1/api-keys/${encodeURIComponent(id)}`);
      print(values.json ? `${JSON.stringify(revoked, null, 2)}\n` : `revoked ${id}\n`);
      return EXIT.ok;
    }
    case 'dead-letters list': {
      const query = [values.type ? `type=${encodeURIComponent(values.type)}` : '', limit].filter(Boolean).join('&');
      const page = (await callApi(target, 'GET', `/v1/dead-letters${query ? `?${query}` : ''}`)) as {
        items: Array<Record<string, unknown>>;
        total: number;
      };
      const rows = page.items.map((x) => ({ ...x, ref: `${String(x.type)}/${String(x.partition)}/${String(x.id)}` }));
      show(page, rows, ['ref', 'at', 'key', 'kind', 'error']);
      if (!values.json) print(`${page.items.length} shown of ${page.total}\n`);
      return EXIT.ok;
    }
    case 'dead-letters show': {
      const [type, partition, id] = rest;
      if (!type || !partition || !id) throw new UsageError('dead-letters show needs <type> <partition> <id>');
      const letter = await callApi(target, 'GET', `/v1/dead-letters/${type}/${partition}/${id}`);
      print(`${JSON.stringify(letter, null, 2)}\n`);
      return EXIT.ok;
    }
    case 'dead-letters replay':
    case 'dead-letters discard': {
      if (rest.length === 0) throw new UsageError(`dead-letters ${sub} needs one or more type/partition/id`);
      const items = rest.map(letterRef);
      const { results } = (await callApi(target, 'POST', `/v1/dead-letters/${sub}`, { items })) as {
        results: Array<Record<string, unknown>>;
      };
      show(
        { results },
        results.map((r) => ({ ...r, ref: `${String(r.type)}/${String(r.partition)}/${String(r.id)}` })),
        ['ref', 'status', 'messageId'],
      );
      return results.every((r) => r.status !== 'gone') ? EXIT.ok : EXIT.notFound;
    }
    case 'actions': {
      const { items } = (await callApi(target, 'GET', `/v1/operator-actions${limit ? `?${limit}` : ''}`)) as {
        items: Array<Record<string, unknown>>;
      };
      show({ items }, items, ['at', 'keyId', 'action', 'target']);
      return EXIT.ok;
    }
    case 'health': {
      const health = (await callApi(target, 'GET', '/health')) as { status?: string };
      print(values.json ? `${JSON.stringify(health, null, 2)}\n` : `${health.status ?? 'ok'}\n`);
      return EXIT.ok;
    }
    case 'migrate':
      return runTool('store/migrate-cli', []);
    case 'ledger verify':
      return runTool('ledger/verify-cli', rest);
    default:
      if (command === 'tail') return tailCommand(env, [sub, ...rest], values, print);
      throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
}

async function tailCommand(
  env: Record<string, string | undefined>,
  args: ReadonlyArray<string | undefined>,
  values: { key?: string | undefined; json?: boolean; count?: string | undefined },
  print: Print,
): Promise<number> {
  const [type, partition] = args;
  if (!type) throw new UsageError('tail needs the actor type (and a partition on a Redis Cluster)');
  if (partition !== undefined && !/^\d+$/.test(partition))
    throw new UsageError(`"${partition}" is no partition number`);
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  await tail(
    env,
    {
      type,
      ...(partition === undefined ? {} : { partition: Number(partition) }),
      ...(values.key ? { key: values.key } : {}),
      json: values.json ?? false,
      ...(values.count ? { count: Number(values.count) } : {}),
    },
    (line) => print(`${line}\n`),
    stop.signal,
  );
  return EXIT.ok;
}

run(process.argv.slice(2), (text) => process.stdout.write(text)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`hearth: ${message}\n`);
    if (err instanceof UsageError || (err instanceof Error && err.name === 'TypeError' && 'code' in err)) {
      process.stderr.write('run hearth --help for the commands\n');
      process.exit(EXIT.usage);
    }
    if (err instanceof ApiFailure) {
      process.exit(err.status === 0 ? EXIT.unreachable : err.status === 404 ? EXIT.notFound : EXIT.failed);
    }
    process.exit(EXIT.failed);
  },
);
