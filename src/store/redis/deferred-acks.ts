import type { Cluster } from 'ioredis';
import { sendPerNode, type KeyedCommand } from './node-batch.js';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * A worker's acknowledgements on a Redis Cluster, held until its next read and sent ahead of it:
 * an XACK per mailbox in the same write per node as the read's XREADGROUPs (the node runs them in
 * that order, so a read of the pending history never sees an entry the round before settled).
 * Sent on their own, a round's acknowledgements went to every node their partitions are on, a
 * write each, after the replies: three of the ten writes a worker made per round at 64 echo
 * askers on 3 masters (/proc/<pid>/io). They are due after the replies anyway (settle-script.ts),
 * and the worker's next read is usually under way by then, so they ride along with the one
 * after. An entry whose acknowledgement waits stays pending a little longer: a crash leaves it
 * to the next owner, which finds it applied (as for any crash between a reply and its ack).
 *
 * They wait at most `maxDelayMs` (a worker blocked on empty mailboxes, or stopping, reads no
 * more): then they go alone.
 */
export class DeferredAcks {
  private queued = new Map<string, string[]>();
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly group: string,
    private readonly maxDelayMs: number,
  ) {}

  /** Queues the entries' acknowledgement; resolves once Redis has it. */
  add(acks: ReadonlyArray<{ stream: string; ids: readonly string[] }>): Promise<void> {
    let any = false;
    for (const { stream, ids } of acks) {
      if (ids.length === 0) continue;
      any = true;
      const queued = this.queued.get(stream);
      if (queued) queued.push(...ids);
      else this.queued.set(stream, [...ids]);
    }
    if (!any) return Promise.resolve();
    this.timer ??= setTimeout(() => this.flush(), this.maxDelayMs);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * The queued acknowledgements as commands to lead a batch (sent by the caller with
   * {@link sendPerNode}), and what to do with their answers. Empties the queue.
   */
  take(): { commands: KeyedCommand[]; settle: (answers: ReadonlyArray<Promise<unknown>>) => void } {
    clearTimeout(this.timer);
    this.timer = undefined;
    const commands = [...this.queued].map(([stream, ids]) => ({
      key: stream,
      name: 'xack',
      args: [stream, this.group, ...ids],
    }));
    const waiters = this.waiters;
    this.queued = new Map();
    this.waiters = [];
    return {
      commands,
      settle: (answers) => {
        Promise.all(answers).then(
          () => waiters.forEach((w) => w.resolve()),
          (err: unknown) => waiters.forEach((w) => w.reject(err)),
        );
      },
    };
  }

  /** Acknowledges the entries now, with whatever is queued: resolves once Redis has them. */
  now(acks: ReadonlyArray<{ stream: string; ids: readonly string[] }>): Promise<void> {
    const done = this.add(acks);
    this.flush();
    return done;
  }

  /** Sends what is queued now, alone. */
  flush(): void {
    const { commands, settle } = this.take();
    if (commands.length > 0) settle(sendPerNode(this.cluster, commands));
  }
}
