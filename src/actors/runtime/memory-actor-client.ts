import type { Metrics } from '../../metrics.js';
import type { ActorRef } from './actor-ref.js';
import { addressedEntry } from './addressed-entry.js';
import type { ActorMessage, Asker } from './asker.js';
import type { MemoryMailboxes } from './memory-mailbox.js';
import { ReplyWaiters, type ReplyWaitersOptions } from './reply-waiters.js';

/**
 * The gateway side of the runtime on the in-memory mailboxes: what `ActorClient` does over Redis
 * streams (asks with deadlines, answered by correlation id), for the product tier's tests, which
 * run hearth with no services. Not for deployments: nothing survives the process.
 */
export class MemoryActorClient implements Asker {
  private readonly waiters: ReplyWaiters;
  private readonly stream: string;
  private readonly unlisten: () => void;

  constructor(
    private readonly broker: MemoryMailboxes,
    gatewayId: string,
    private readonly opts: ReplyWaitersOptions & { partitionsOf: (type: string) => number },
    metrics: Metrics,
  ) {
    this.waiters = new ReplyWaiters(opts, metrics);
    this.stream = `replies:${gatewayId}`;
    this.unlisten = broker.listen(this.stream, (r) => this.waiters.settle(r));
  }

  ask<M extends { kind: string }, R extends { [K in M['kind']]: unknown }, K extends M['kind']>(
    actor: ActorRef<M, R>,
    key: string,
    msg: M & { kind: K },
    timeoutMs?: number,
  ): Promise<R[K]>;
  ask<R = unknown>(type: string, key: string, msg: ActorMessage, timeoutMs?: number): Promise<R>;
  ask(
    actor: string | ActorRef<{ kind: string }, Record<string, unknown>>,
    key: string,
    msg: ActorMessage,
    timeoutMs?: number,
  ): Promise<unknown> {
    const type = typeof actor === 'string' ? actor : actor.type;
    return this.waiters.ask(type, timeoutMs, (corr) => this.post(type, key, msg, this.stream, corr));
  }

  tell(type: string, key: string, msg: ActorMessage): Promise<string> {
    return this.post(type, key, msg, '', '');
  }

  close(): Promise<void> {
    this.waiters.close();
    this.unlisten();
    return Promise.resolve();
  }

  /** A promise, as a mailbox write over the network is: a message JSON cannot hold rejects it. */
  private post(type: string, key: string, msg: ActorMessage, reply: string, corr: string): Promise<string> {
    try {
      const { partition, fields } = addressedEntry(this.opts.partitionsOf, { type, key }, msg, reply, corr);
      return Promise.resolve(this.broker.send(type, partition, fields));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
