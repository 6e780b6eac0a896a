import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface ClusterNode {
  port: number;
  child: ChildProcess;
}

export interface RedisCluster {
  /** Seed nodes, `127.0.0.1:<port>` comma-separated (what REDIS_CLUSTER_NODES takes). */
  readonly seeds: string;
  readonly nodes: readonly ClusterNode[];
  /** `redis-cli -p <port> <args…>` against one node; its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** SIGKILL one node (a crashed master): no shutdown, no save. */
  kill(port: number): Promise<void>;
  /** The port of the master that serves a slot now. */
  masterOf(slot: number): Promise<number>;
  /** The ports of the masters. */
  masters(): Promise<number[]>;
  /**
   * Moves one slot, with its keys, to another master while clients use it: the steps
   * `redis-cli --cluster reshard` takes for each slot (IMPORTING on the target, MIGRATING on the
   * source, MIGRATE the keys a few at a time, then the new owner announced to every master).
   */
  moveSlot(slot: number, toPort: number): Promise<void>;
  /** Stops every node this helper started (by PID) and removes their files. */
  stop(): Promise<void>;
}

/** A port free now, whose cluster bus port (+10000) is free too. */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a cluster node');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster: ${what} not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A real Redis Cluster on loopback: `masters` × (1 + `replicas`) `redis-server --cluster-enabled
 * yes` processes on free ports, joined with `redis-cli --cluster create`. Nothing persists (no
 * RDB, no AOF), as the machine's own Redis.
 */
export async function startRedisCluster(
  o: {
    masters?: number;
    replicas?: number;
    /**
     * How long a node may not answer before it is taken for failed (default 2 s: a failover in
     * seconds). A cluster many suites share uses a long one: on a busy 2-core machine a master
     * starved of CPU for 2 s was failed over mid-run, and the writes its replica had not yet
     * received were lost with it (seen in CI).
     */
    nodeTimeoutMs?: number;
  } = {},
): Promise<RedisCluster> {
  const masters = o.masters ?? 3;
  const replicas = o.replicas ?? 1;
  const dir = await mkdtemp(join(tmpdir(), 'hearth-cluster-'));
  const nodes: ClusterNode[] = [];
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;
  const stop = async () => {
    await Promise.all(
      nodes.map(async (n) => {
        if (n.child.exitCode !== null || n.child.signalCode !== null) return;
        n.child.kill('SIGKILL');
        await once(n.child, 'exit');
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePortPair();
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(o.nodeTimeoutMs ?? 2_000),
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      nodes.push({ port, child });
    }
    for (const n of nodes) await until(async () => (await cli(n.port, 'PING')).trim() === 'PONG', `node ${n.port} up`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    // Every node sees the whole cluster: state ok, and each replica attached to its master.
    const settled = async (port: number) => {
      if (!(await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
      const flags = (await cli(port, 'CLUSTER', 'NODES'))
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[2] ?? '');
      return flags.filter((f) => f.includes('slave')).length === masters * replicas;
    };
    for (const n of nodes) await until(() => settled(n.port), `node ${n.port} settled`);
    // A replica that has never synced with its master cannot take over from it (its data's age
    // is unknown): wait for every replication link.
    const synced = async (port: number) => {
      const info = await cli(port, 'INFO', 'replication');
      return info.includes('role:master') || info.includes('master_link_status:up');
    };
    for (const n of nodes) await until(() => synced(n.port), `node ${n.port} replicating`);
  } catch (err) {
    await stop();
    throw err;
  }
  /** The masters as one node sees them now: id, port and slot ranges. */
  const shape = async () => {
    const lines = (
      await cli(nodes.find((n) => n.child.exitCode === null && n.child.signalCode === null)!.port, 'CLUSTER', 'NODES')
    )
      .trim()
      .split('\n');
    return lines
      .map((line) => line.split(' '))
      .filter((f) => f[2]!.includes('master') && !f[2]!.includes('fail'))
      .map((f) => ({
        id: f[0]!,
        port: Number(f[1]!.split('@')[0]!.split(':')[1]),
        slots: f
          .slice(8)
          .filter((r) => !r.startsWith('['))
          .map((r) => {
            const [a, b] = r.split('-').map(Number);
            return [a!, b ?? a!] as [number, number];
          }),
      }));
  };
  return {
    seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    nodes,
    cli,
    masterOf: async (slot) => (await shape()).find((m) => m.slots.some(([a, b]) => slot >= a && slot <= b))!.port,
    masters: async () => (await shape()).map((m) => m.port),
    async moveSlot(slot, toPort) {
      const masters = await shape();
      const from = masters.find((m) => m.slots.some(([a, b]) => slot >= a && slot <= b))!;
      const to = masters.find((m) => m.port === toPort)!;
      if (from.port === to.port) return;
      await cli(to.port, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', from.id);
      await cli(from.port, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', to.id);
      for (;;) {
        const keys = (await cli(from.port, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '10')).split('\n').filter(Boolean);
        if (keys.length === 0) break;
        await cli(from.port, 'MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys);
      }
      for (const m of [to, from, ...masters.filter((x) => x !== to && x !== from)]) {
        await cli(m.port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', to.id);
      }
    },
    async kill(port) {
      const n = nodes.find((x) => x.port === port);
      if (!n || n.child.exitCode !== null) return;
      n.child.kill('SIGKILL');
      await once(n.child, 'exit');
    },
    stop,
  };
}
