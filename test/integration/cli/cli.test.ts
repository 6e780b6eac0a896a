import { execFile, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEntry } from '../../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../../src/actors/runtime/partitioning.js';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { adminKey, api } from '../../support/api.js';
import { isolated, type Isolated } from '../../support/isolated.js';

const PARTITIONS = 2;

/** The `hearth` command line, run as a process as an operator would (issue 25). */
// Each case runs the CLI several times, each a Node process that compiles its TypeScript at start:
// CI's loaded runs took up to 49 s for one case, and one ran past the default 60 s.
describe('the hearth CLI', { timeout: 180_000 }, () => {
  let env: Isolated;
  let hearth: Hearth;
  let base: Record<string, string>;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: String(PARTITIONS), HEARTH_DIAGNOSTICS: 'true' }),
      env.log,
    );
    base = { ...env.env(), HEARTH_URL: `http://127.0.0.1:${hearth.port}`, HEARTH_API_KEY: adminKey };
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  /** Runs `hearth <args>`; its exit code and output. */
  function cli(
    args: string[],
    extra: Record<string, string> = {},
  ): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', ...args],
        { env: { PATH: process.env.PATH ?? '', ...base, ...extra } },
        (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
      );
    });
  }

  it('creates, lists and revokes API keys, in tables or JSON', async () => {
    const made = await cli(['keys', 'create', '--role', 'implementer', '--label', 'night shift', '--json']);
    expect(made.code).toBe(0);
    const key = JSON.parse(made.out) as { id: string; key: string; role: string };
    expect(key).toMatchObject({ role: 'implementer', key: expect.any(String) });
    const list = await cli(['keys', 'list']);
    expect(list.code).toBe(0);
    expect(list.out.split('\n')[0]).toMatch(/^ID\s+ROLE\s+DID\s+LABEL/);
    expect(list.out).toMatch(new RegExp(`${key.id}\\s+implementer\\s+night shift`));
    expect(list.out).not.toContain(key.key); // secrets are never listed
    expect((await cli(['keys', 'revoke', key.id])).code).toBe(0);
    const listed = JSON.parse((await cli(['keys', 'list', '--json'])).out) as { items: Array<Record<string, unknown>> };
    expect(listed.items.find((k) => k.id === key.id)?.revokedAt).toEqual(expect.any(String));
  });

  it('says what is wrong, with exit codes scripts can use', async () => {
    const noKey = await cli(['keys', 'list'], { HEARTH_API_KEY: '' });
    expect(noKey.code).toBe(1);
    expect(noKey.err).toMatch(/401.*HEARTH_API_KEY/);
    const away = await cli(['health'], { HEARTH_URL: 'http://127.0.0.1:9' });
    expect(away.code).toBe(3);
    expect(away.err).toMatch(/cannot reach hearth at http:\/\/127.0.0.1:9/);
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown command "frobnicate"/);
    expect((await cli(['dead-letters', 'replay', 'not-a-ref'])).code).toBe(2);
    expect((await cli(['keys', 'list', '--bogus'])).code).toBe(2);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/hearth dead-letters replay/);
    expect(await cli(['health'])).toMatchObject({ code: 0, out: expect.stringMatching(/ok/) });
  });

  it('lists, replays and discards dead letters, and shows the record of it', async () => {
    const key = 'cli-dl';
    const partition = partitionOf(key, PARTITIONS);
    const entry = encodeEntry({ key, kind: 'add', body: '{"kind":"add","by":3}', reply: '', corr: '', ts: Date.now() });
    const fields = [
      'stream',
      env.keys.mailbox('counter', partition),
      'id',
      '1-0',
      ...entry,
      'error',
      'boom',
      'worker',
      'w',
    ];
    const id = (await env.redis.xadd(env.keys.deadLetter('counter', partition), '*', ...fields))!;
    const ref = `counter/${partition}/${id}`;
    const list = await cli(['dead-letters', 'list', '--type', 'counter']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(new RegExp(`${ref}\\s+\\S+\\s+${key}\\s+add\\s+boom`));
    const replay = await cli(['dead-letters', 'replay', ref]);
    expect(replay).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`${ref}\\s+replayed`)) });
    expect((await cli(['dead-letters', 'replay', ref])).code).toBe(4); // gone: replayed once only
    const a = api(hearth.port);
    await expect
      .poll(async () => ((await a.call('GET', `/v1/diagnostics/counters/${key}`)).body as { count: number }).count, {
        timeout: 10_000,
      })
      .toBe(3);
    const actions = await cli(['actions']);
    expect(actions.out).toMatch(new RegExp(`dead-letter\\.replay\\s+${ref}`));
  });

  it("tails a key's partition as entries arrive, filtered by the key", async () => {
    const key = 'cli-tail';
    const partition = partitionOf(key, PARTITIONS);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'tail',
        'counter',
        // No partition: the key's own is followed (on a cluster too).
        '--key',
        key,
        '--count',
        '1',
        '--json',
      ],
      { env: { PATH: process.env.PATH ?? '', ...base } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    // Until the tail is reading, the messages it should see: another key's (filtered out), then its own.
    const a = api(hearth.port);
    const deadline = Date.now() + 15_000;
    while (out === '' && Date.now() < deadline) {
      await a.call('POST', '/v1/diagnostics/counters/cli-tail-other', { body: { by: 1 } });
      await a.call('POST', `/v1/diagnostics/counters/${key}`, { body: { by: 2 } });
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await exited).toBe(0);
    const line = JSON.parse(out.trim().split('\n')[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      type: 'counter',
      partition,
      key,
      kind: 'add',
      body: expect.stringContaining('"by":2'),
    });
  });

  it('runs the migrations and the ledger check against the database', async () => {
    const migrate = await cli(['migrate'], { LOG_LEVEL: 'info' });
    expect(migrate.code).toBe(0);
    expect(migrate.out).toMatch(/migrations up to date/);
    const verify = await cli(['ledger', 'verify']);
    expect(verify.code).toBe(0);
    expect(verify.out).toMatch(/ledger:verify: OK/);
  });
});
