import type { Cluster } from 'ioredis';
import { hashSlot } from './hash-slot.js';

/** One command over one key (its slot says which node runs it). */
export interface KeyedCommand {
  key: string;
  name: string;
  args: ReadonlyArray<string | number>;
}

/** A redirection: the node ran nothing, so the command may be sent again as it was. */
function isRedirect(err: unknown): boolean {
  return err instanceof Error && (err.message.startsWith('MOVED ') || err.message.startsWith('ASK '));
}

/**
 * Sends a batch of single-key commands to a cluster in one write per node: an explicit pipeline
 * per node, at once. The runtime's batches (a round's settles, a turn's mailbox writes) are
 * scripts, which skip ioredis's auto-pipeline (redis.ts), so sent one by one each was a socket
 * write of its own in the worker and a read of its own in Redis: 10% of a worker's CPU on a
 * cluster went to those writes (cpu profile of the echo bench, against 4% on one Redis).
 *
 * Answers one promise per command, in the commands' order. A command answered MOVED or ASK
 * (a resharding) ran nowhere: it is sent again alone, at once, where the redirection points.
 * The pipeline's other commands keep their own answers: ioredis retries a cluster pipeline
 * itself only when every command got the same redirection.
 */
export function sendPerNode(cluster: Cluster, commands: readonly KeyedCommand[]): Array<Promise<unknown>> {
  const groups = new Map<string, number[]>();
  commands.forEach((c, i) => {
    const slot = hashSlot(c.key);
    // No slot map yet (still connecting): a pipeline per slot, which waits for the map.
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

/**
 * An explicit pipeline, never the auto-pipeline: that one waits behind the node's pipeline in
 * flight, and a command of a later turn sent past it would land first. A pipeline whose every
 * command got the same redirection (one alone, always) is sent again by ioredis where it points.
 */
function pipelined(
  cluster: Cluster,
  commands: readonly KeyedCommand[],
): Promise<Array<[Error | null, unknown]> | null> {
  const pipeline = cluster.pipeline();
  for (const c of commands) pipeline.call(c.name, ...c.args);
  return pipeline.exec();
}
