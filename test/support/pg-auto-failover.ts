import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

/**
 * A pg_auto_failover formation on loopback, started by the test that needs it: a monitor and two
 * PostgreSQL nodes, each a `pg_autoctl … --run` process of its own (as the `postgres` user:
 * PostgreSQL refuses root), on free ports, in a temporary folder. Nothing is installed here:
 * `.ci/run` installs the Debian packages (postgresql-15-auto-failover, pg-auto-failover-cli); without
 * them `startAutoFailover` answers undefined and the test says it is skipped. Stops only what it
 * started, by PID.
 */
interface FormationNode {
  name: string;
  port: number;
  pgdata: string;
}

interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
}

export interface AutoFailover {
  /** The client URL: both nodes, node1 first (hearth adds target_session_attrs=read-write). */
  url: string;
  nodes: readonly FormationNode[];
  state(): Promise<NodeState[]>;
  /** Waits until the formation has one primary and one secondary, both as assigned; the primary's name. */
  settled(timeoutMs?: number): Promise<string>;
  /** A machine's death: SIGKILL to the node's pg_autoctl processes and its postmaster. */
  kill(name: string): Promise<void>;
  /** Starts a killed node's keeper again (it rejoins as a standby). */
  restart(name: string): void;
  /** `pg_autoctl perform switchover`: the monitor moves the primary to the other node. */
  switchover(): Promise<void>;
  stop(): Promise<void>;
}

const PG_BIN = '/usr/lib/postgresql/15/bin';
const AUTOCTL = '/usr/bin/pg_autoctl';

export function autoFailoverAvailable(): boolean {
  return existsSync(AUTOCTL) && existsSync(join(PG_BIN, 'pg_ctl')) && process.getuid?.() === 0;
}

/** A loopback port nothing listens on now (just freed). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  logs: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const got = await probe().catch((err: unknown) => void (last = err));
    if (got !== undefined) return got;
    if (Date.now() > deadline) {
      // What CI prints is all a reader has: the last error and what each process said.
      throw new Error(`pg_auto_failover: ${what} not within ${timeoutMs} ms (last error: ${String(last)})\n${logs()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every live process (pid → parent pid), from /proc. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** A process and all its descendants, found by parent links (pg_autoctl starts some in sessions of their own). */
function treeOf(root: number): number[] {
  const table = processTable();
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of table) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

/** Processes whose environment names this formation's folder: only what this helper started. */
function startedIn(dir: string): number[] {
  const mark = `XDG_CONFIG_HOME=${dir}/config`;
  return [...processTable().keys()].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(mark);
    } catch {
      return false;
    }
  });
}

function killAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export async function startAutoFailover(): Promise<AutoFailover | undefined> {
  if (!autoFailoverAvailable()) return undefined;
  // Under /tmp, not TMPDIR: the postgres user must reach the folder, and a runner's TMPDIR may sit
  // in a root-only tree.
  const dir = mkdtempSync(join('/tmp', 'hearth-paf-'));
  chownSync(
    dir,
    Number((await run('id', ['-u', 'postgres'])).stdout),
    Number((await run('id', ['-g', 'postgres'])).stdout),
  );
  const env = [
    `XDG_CONFIG_HOME=${dir}/config`,
    `XDG_DATA_HOME=${dir}/data`,
    `HOME=${dir}`,
    `PATH=${PG_BIN}:/usr/bin:/bin`,
  ];
  const children = new Map<string, ChildProcess>();
  const logs = new Map<string, string[]>();
  const asPostgres = (args: string[]) => ['-u', 'postgres', '--', 'env', ...env, AUTOCTL, ...args];
  const keep = (name: string, args: string[]) => {
    // A process group of its own: the keeper and the PostgreSQL it starts die together on kill.
    const child = spawn('runuser', asPostgres(args), { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = logs.get(name) ?? [];
    logs.set(name, log);
    child.stdout?.on('data', (b: Buffer) => log.push(b.toString()));
    child.stderr?.on('data', (b: Buffer) => log.push(b.toString()));
    children.set(name, child);
  };
  /** The last lines each process printed, for an error that CI's log must explain by itself. */
  const tail = () =>
    [...logs].map(([name, lines]) => `--- ${name}\n${lines.join('').split('\n').slice(-15).join('\n')}`).join('\n');
  const common = ['--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--pgctl', join(PG_BIN, 'pg_ctl')];

  // A formation that does not come up leaves nothing behind: its processes and its folder go.
  const abandon = () => {
    for (const child of children.values()) if (child.pid) killAll([-child.pid], 'SIGKILL');
    killAll(startedIn(dir), 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const monitorPort = await freePort();
    const monitorData = join(dir, 'monitor');
    keep('monitor', [
      'create',
      'monitor',
      '--pgdata',
      monitorData,
      '--pgport',
      String(monitorPort),
      ...common,
      '--run',
    ]);
    const monitorAdmin = postgres(`postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`, {
      max: 1,
      onnotice: () => undefined,
      connect_timeout: 2,
    });
    await until('the monitor', async () => (await monitorAdmin`select 1 as ok`)[0]?.ok, 60_000, tail);
    // Failover in seconds rather than the defaults' half minute: health checks every second, a node
    // unhealthy after 2 s, and a primary that cannot be reached considered demoted after 3 s.
    for (const [name, value] of [
      ['health_check_period', 1000],
      ['health_check_timeout', 1000],
      ['health_check_max_retries', 1],
      ['health_check_retry_delay', 500],
      ['node_considered_unhealthy_timeout', 2000],
      ['primary_demote_timeout', 3000],
    ] as const) {
      await monitorAdmin.unsafe(`ALTER SYSTEM SET pgautofailover.${name} = ${value}`);
    }
    await monitorAdmin`select pg_reload_conf()`;
    const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;

    const nodes: FormationNode[] = [];
    const nodeArgs = (n: FormationNode) => ['--pgdata', n.pgdata];
    for (const name of ['node1', 'node2']) {
      const node = { name, port: await freePort(), pgdata: join(dir, name) };
      nodes.push(node);
      keep(name, [
        'create',
        'postgres',
        ...nodeArgs(node),
        '--pgport',
        String(node.port),
        '--name',
        name,
        ...common,
        '--monitor',
        monitorUrl,
        '--run',
      ]);
      // One at a time: the first becomes the primary, the second its standby.
      await until(
        `${name} registered`,
        async () => {
          const [row] = await monitorAdmin<{ n: number }[]>`
            select count(*)::int as n from pgautofailover.node where nodename = ${name}`;
          return row && row.n > 0 ? true : undefined;
        },
        60_000,
        tail,
      );
    }

    const state = async (): Promise<NodeState[]> => {
      const rows = await monitorAdmin<
        { nodename: string; nodeport: number; reportedstate: string; goalstate: string }[]
      >`
        select nodename, nodeport, reportedstate::text, goalstate::text from pgautofailover.node order by nodeid`;
      return rows.map((r) => ({
        name: r.nodename,
        port: r.nodeport,
        reported: r.reportedstate,
        assigned: r.goalstate,
      }));
    };
    const settled = (timeoutMs = 120_000) =>
      until(
        'one primary and one secondary',
        async () => {
          const s = await state();
          const primary = s.find((n) => n.reported === 'primary' && n.assigned === 'primary');
          const secondary = s.find((n) => n.reported === 'secondary' && n.assigned === 'secondary');
          return primary && secondary ? primary.name : undefined;
        },
        timeoutMs,
        tail,
      );
    const stopChild = async (name: string, signal: NodeJS.Signals) => {
      const child = children.get(name);
      if (!child?.pid || child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, signal);
      } catch {
        return;
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    };
    await settled();
    return {
      url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/postgres`,
      nodes,
      state,
      settled,
      async kill(name) {
        const child = children.get(name);
        // The keeper, its children (some in sessions of their own) and PostgreSQL's processes die at once.
        killAll(child?.pid ? treeOf(child.pid) : [], 'SIGKILL');
        if (child && child.exitCode === null) await new Promise((r) => child.once('exit', r));
      },
      restart(name) {
        const node = nodes.find((n) => n.name === name)!;
        keep(name, ['run', ...nodeArgs(node)]);
      },
      async switchover() {
        await run('runuser', asPostgres(['perform', 'switchover', '--pgdata', monitorData, '--wait', '60']), {
          timeout: 90_000,
        });
      },
      async stop() {
        for (const node of [...nodes].reverse()) await stopChild(node.name, 'SIGTERM');
        await monitorAdmin.end({ timeout: 1 }).catch(() => undefined);
        await stopChild('monitor', 'SIGTERM');
        // Whatever outlived its keeper (a killed node's detached helper, a postmaster).
        killAll(startedIn(dir), 'SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    abandon();
    throw err;
  }
}
