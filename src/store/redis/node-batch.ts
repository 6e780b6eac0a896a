import type { Cluster } from 'ioredis';
import { hashSlot } from './hash-slot.js';
import { bellOf } from './keys.js';
import { NodePipe, type PipedCommand } from './node-pipe.js';

/** One command over one key (its slot says which node runs it). */
export interface KeyedCommand {
  key: string;
  name: string;
  args: ReadonlyArray<string | number>;
}

/** How many times one command follows MOVED or ASK before its last answer is its error. */
const MAX_REDIRECTIONS = 5;

/** A command not answered within this (when the cluster's connections set no timeout) fails. */
const DEFAULT_TIMEOUT_MS = 2_000;

/**
 * Sends a batch of single-key commands to a cluster in one write per node, at once: the
 * runtime's batches (a worker's reads and acknowledgements, a round's settles, a gateway's turn of
 * mailbox writes). Answers one promise per command, in the commands' order.
 *
 * Sent on the runtime's own connections to the nodes (node-pipe.ts), not through ioredis, whose
 * command objects cost the worker more than the rest of a round on a cluster. A command answered
 * MOVED or ASK (a resharding, a failover) ran nowhere: it is sent again where the redirection
 * points (after ASKING for ASK), before any later reply of its node is read.
 *
 * One key's commands land in the order they were sent, even across a move. Commands of a key
 * with commands still unanswered go where the newest of those went, not where the slot map now
 * says: on the old node they are redirected in turn, each after the one before it. Only when the
 * key has nothing in flight does the slot map choose again. (ioredis's map may learn a slot's new
 * owner while commands are still on their way to the old one: routed by the map, a later write
 * would overtake them.)
 *
 * A key whose slot the cluster has no node for yet (still connecting), and with nothing in
 * flight on the pipes, goes through ioredis, a pipeline per node, which waits for the map.
 */
export function sendPerNode(cluster: Cluster, commands: readonly KeyedCommand[]): Array<Promise<unknown>> {
  // A client that has ended gets no new pipes: ioredis refuses the commands, as for any other.
  if (cluster.status === 'end' || cluster.status === 'close') return viaIoredis(cluster, commands);
  const pipes = pipesOf(cluster);
  const piped: number[] = [];
  const unmapped: number[] = [];
  commands.forEach((c, i) => (pipes.knows(c.key) ? piped : unmapped).push(i));
  if (unmapped.length === 0) return pipes.send(commands);
  const out = new Array<Promise<unknown>>(commands.length);
  const viaPipes = pipes.send(piped.map((i) => commands[i]!));
  piped.forEach((i, k) => {
    out[i] = viaPipes[k]!;
  });
  const viaClient = viaIoredis(
    cluster,
    unmapped.map((i) => commands[i]!),
  );
  unmapped.forEach((i, k) => {
    out[i] = viaClient[k]!;
  });
  return out;
}

/**
 * Rings a mailbox's bell (mailbox-bells.ts) with the id of the newest entry it was rung for, or
 * `1` when the writer does not know it (the worker then reads the mailbox whatever it has seen).
 * Keyed by the mailbox, whose slot the bell shares: it lands after the mailbox's entries.
 */
export function ringCommand(mailbox: string, newest = '1'): KeyedCommand {
  return { key: mailbox, name: 'spublish', args: [bellOf(mailbox), newest] };
}

/** Where a key's newest unanswered command went, and how many it has unanswered. */
interface Tail {
  node: string;
  asking: boolean;
  newest: Sent;
  unanswered: number;
}

interface Sent {
  command: KeyedCommand;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  redirections: number;
}

const pipesByCluster = new WeakMap<Cluster, ClusterPipes>();

function pipesOf(cluster: Cluster): ClusterPipes {
  let pipes = pipesByCluster.get(cluster);
  if (!pipes) {
    const made = new ClusterPipes(cluster);
    pipesByCluster.set(cluster, made);
    // Closed with the cluster client; one connected again gets new pipes.
    cluster.once('end', () => {
      made.close();
      if (pipesByCluster.get(cluster) === made) pipesByCluster.delete(cluster);
    });
    pipes = made;
  }
  return pipes;
}

/** A cluster client's pipes to its nodes, made at a node's first batch. */
class ClusterPipes {
  private readonly pipes = new Map<string, NodePipe>();
  private readonly tails = new Map<string, Tail>();

  constructor(private readonly cluster: Cluster) {}

  /** Whether a key can go on the pipes: its slot has a node, or its newest command went somewhere. */
  knows(key: string): boolean {
    return this.tails.has(key) || this.cluster.slots[hashSlot(key)]?.[0] !== undefined;
  }

  send(commands: readonly KeyedCommand[]): Array<Promise<unknown>> {
    const batches = new Map<string, PipedCommand[]>();
    const answers = commands.map(
      (command) =>
        new Promise<unknown>((resolve, reject) => {
          const sent: Sent = { command, resolve, reject, redirections: 0 };
          const to = this.routeNew(sent);
          let batch = batches.get(to.node);
          if (!batch) batches.set(to.node, (batch = []));
          this.pipe(batch, sent, to.node, to.asking);
        }),
    );
    for (const [node, batch] of batches) this.pipeTo(node).send(batch);
    return answers;
  }

  close(): void {
    for (const pipe of this.pipes.values()) pipe.close();
    this.pipes.clear();
  }

  /** Where a new command of its key goes: behind the key's unanswered ones, or by the slot map. */
  private routeNew(sent: Sent): { node: string; asking: boolean } {
    const key = sent.command.key;
    const tail = this.tails.get(key);
    if (tail) {
      tail.newest = sent;
      tail.unanswered++;
      return tail;
    }
    const node = this.cluster.slots[hashSlot(key)]![0]!;
    this.tails.set(key, { node, asking: false, newest: sent, unanswered: 1 });
    return { node, asking: false };
  }

  /** Adds the command (after ASKING when `asking`) to a node's batch, its answer handled. */
  private pipe(batch: PipedCommand[], sent: Sent, node: string, asking: boolean): void {
    if (asking) batch.push({ args: ['ASKING'], answer: () => undefined, fail: () => undefined });
    const { name, args } = sent.command;
    batch.push({
      args: [name, ...args],
      answer: (reply) => this.answered(sent, reply),
      fail: (err) => {
        // The node may be gone (a failover): the map is asked for again.
        this.cluster.refreshSlotsCache();
        this.settle(sent);
        sent.reject(err);
      },
    });
  }

  private answered(sent: Sent, reply: unknown): void {
    if (!(reply instanceof Error)) {
      this.settle(sent);
      sent.resolve(reply);
      return;
    }
    const redirection = redirectionOf(reply);
    if (!redirection || sent.redirections >= MAX_REDIRECTIONS) {
      this.settle(sent);
      sent.reject(reply);
      return;
    }
    sent.redirections++;
    // MOVED: the slot has a new owner for good, which the map should learn; ASK: only this key,
    // while its slot moves.
    if (!redirection.asking) this.cluster.refreshSlotsCache();
    const tail = this.tails.get(sent.command.key);
    if (tail?.newest === sent) {
      tail.node = redirection.node;
      tail.asking = redirection.asking;
    }
    const batch: PipedCommand[] = [];
    this.pipe(batch, sent, redirection.node, redirection.asking);
    this.pipeTo(redirection.node).send(batch);
  }

  /** The command has its last answer: its key's tail forgets it. */
  private settle(sent: Sent): void {
    const key = sent.command.key;
    const tail = this.tails.get(key);
    if (tail && --tail.unanswered === 0) this.tails.delete(key);
  }

  private pipeTo(node: string): NodePipe {
    let pipe = this.pipes.get(node);
    if (!pipe) {
      const colon = node.lastIndexOf(':');
      const { redisOptions } = this.cluster.options;
      pipe = new NodePipe(node.slice(0, colon), Number(node.slice(colon + 1)), {
        username: redisOptions?.username,
        password: redisOptions?.password,
        tls: redisOptions?.tls,
        connectionName: `${redisOptions?.connectionName ?? 'hearth'}:pipe`,
        timeoutMs: redisOptions?.commandTimeout ?? DEFAULT_TIMEOUT_MS,
      });
      this.pipes.set(node, pipe);
    }
    return pipe;
  }
}

/** `MOVED <slot> <host:port>` or `ASK <slot> <host:port>`: where to send the command instead. */
function redirectionOf(err: Error): { node: string; asking: boolean } | undefined {
  const m = /^(MOVED|ASK) \d+ (\S+)$/.exec(err.message);
  return m ? { node: m[2]!, asking: m[1] === 'ASK' } : undefined;
}

/** A redirection: the node ran nothing, so the command may be sent again as it was. */
function isRedirect(err: unknown): boolean {
  return err instanceof Error && (err.message.startsWith('MOVED ') || err.message.startsWith('ASK '));
}

/**
 * Through ioredis, an explicit pipeline per node (never the auto-pipeline: that one waits behind
 * the node's pipeline in flight, and a command of a later turn sent past it would land first).
 * A command answered MOVED or ASK is sent again alone, which ioredis follows itself.
 */
function viaIoredis(cluster: Cluster, commands: readonly KeyedCommand[]): Array<Promise<unknown>> {
  const groups = new Map<string, number[]>();
  commands.forEach((c, i) => {
    const slot = hashSlot(c.key);
    const node = cluster.slots[slot]?.join(',') ?? `slot ${slot}`;
    let group = groups.get(node);
    if (!group) groups.set(node, (group = []));
    group.push(i);
  });
  const out = new Array<Promise<unknown>>(commands.length);
  for (const group of groups.values()) {
    const answers = pipelined(
      cluster,
      group.map((i) => commands[i]!),
    );
    group.forEach((i, k) => {
      out[i] = answers.then((results) => {
        const [err, value] = results?.[k] ?? [new Error('no answer in the pipeline'), undefined];
        if (!err) return value;
        if (!isRedirect(err) || group.length === 1) throw err;
        return pipelined(cluster, [commands[i]!]).then((again) => {
          const [error, answer] = again?.[0] ?? [new Error('no answer in the pipeline'), undefined];
          if (error) throw error;
          return answer;
        });
      });
    });
  }
  return out;
}

function pipelined(
  cluster: Cluster,
  commands: readonly KeyedCommand[],
): Promise<Array<[Error | null, unknown]> | null> {
  const pipeline = cluster.pipeline();
  for (const c of commands) pipeline.call(c.name, ...c.args);
  return pipeline.exec();
}
