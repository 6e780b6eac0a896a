import type { RedisClient } from './redis.js';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { Backoff, sleep } from '../../actors/runtime/backoff.js';
import { decodeReply } from '../../actors/runtime/entry-codec.js';
import type { Keys } from './keys.js';
import { mailboxEntry } from './mailbox-post.js';
import { MailboxWriter } from './mailbox-writer.js';
import type { ActorRef } from '../../actors/runtime/actor-ref.js';
import type { ActorMessage, Asker } from '../../actors/runtime/asker.js';
import { ReplyWaiters, type ReplyWaitersOptions } from '../../actors/runtime/reply-waiters.js';

export interface ActorClientOptions extends ReplyWaitersOptions {
  /** Partitions of a type (must match the workers'). */
  partitionsOf: (type: string) => number;
}

/** How long the reply stream outlives a gateway that died without cleaning up. */
const REPLY_STREAM_TTL_MS = 60 * 60 * 1000;

/**
 * The gateway side of the runtime: `tell()` posts to an actor's mailbox; `ask()` also waits for
 * the reply on this process's own reply stream, matched by correlation id, until a deadline.
 */
export class ActorClient implements Asker {
  private readonly waiters: ReplyWaiters;
  private readonly stream: string;
  private readonly abort = new AbortController();
  private lastId = '0';
  private loop: Promise<void> | undefined;
  private closed = false;
  private refreshed = 0;
  private readonly writer: MailboxWriter;

  constructor(
    private readonly redis: RedisClient,
    /** A connection of its own: the blocking XREAD holds it. */
    private readonly reader: RedisClient,
    private readonly keys: Keys,
    readonly gatewayId: string,
    private readonly opts: ActorClientOptions,
    private readonly log: Logger,
    metrics: Metrics,
  ) {
    this.waiters = new ReplyWaiters(opts, metrics);
    this.stream = keys.replies(gatewayId);
    this.writer = new MailboxWriter(redis);
  }

  /** Creates the reply stream (workers reply with NOMKSTREAM) and starts reading it. */
  async start(): Promise<void> {
    await this.createStream();
    this.loop = this.readReplies();
  }

  /** Asks waiting for their replies. */
  get inFlight(): number {
    return this.waiters.size;
  }

  async tell(type: string, key: string, msg: ActorMessage): Promise<string> {
    return this.post(type, key, msg, '', '');
  }

  /**
   * Asks an actor and waits for its reply. With an {@link ActorRef} the message is checked
   * against the actor's union and the reply is typed by its kind; a bare type name (tests, the
   * diagnostic actors) answers `unknown`, to be checked by the caller.
   *
   * The mailbox write is not awaited here; if it fails, it settles the reply with its error.
   */
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
    // Closing: nothing more is posted (the waiters refuse too, once the reply reader has stopped).
    if (this.closed) {
      return Promise.reject(new AppError('SHUTTING_DOWN', 'this gateway is shutting down', undefined, true));
    }
    return this.waiters.ask(type, timeoutMs, (corr) => this.post(type, key, msg, this.stream, corr));
  }

  private async post(type: string, key: string, msg: ActorMessage, reply: string, corr: string): Promise<string> {
    const { stream, fields } = mailboxEntry(this.keys, this.opts.partitionsOf, { type, key }, msg, reply, corr);
    try {
      return await this.writer.write(stream, fields);
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err), type }, 'mailbox write failed');
      throw new AppError('UNAVAILABLE', 'the message store (RedisClient) is unavailable; retry later', undefined, true);
    }
  }

  private async createStream(): Promise<void> {
    // An entry creates the stream; reading starts after it.
    this.lastId = (await this.redis.xadd(this.stream, '*', 'corr', '', 'ok', '1', 'body', 'null')) as string;
    await this.redis.pexpire(this.stream, REPLY_STREAM_TTL_MS);
    this.refreshed = Date.now();
  }

  private async readReplies(): Promise<void> {
    const backoff = new Backoff();
    while (!this.abort.signal.aborted) {
      try {
        const res = await this.reader.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', this.stream, this.lastId);
        for (const [id, fields] of res?.[0]?.[1] ?? []) {
          this.lastId = id;
          this.waiters.settle(decodeReply(fields));
        }
        await this.keepAlive();
        backoff.reset();
      } catch (err) {
        if (this.abort.signal.aborted) break;
        // Redis may have restarted without its data: check the stream as soon as it answers
        // again, not a minute later (workers reply with NOMKSTREAM, so asks would time out).
        this.refreshed = 0;
        const delay = backoff.next();
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
          'reply stream read failed',
        );
        await sleep(delay, this.abort.signal);
      }
    }
  }

  /** Keeps the reply stream alive, and re-creates it after a Redis restart lost it. */
  private async keepAlive(): Promise<void> {
    if (Date.now() - this.refreshed < 60_000) return;
    const alive = await this.redis.pexpire(this.stream, REPLY_STREAM_TTL_MS);
    if (alive === 0) await this.createStream();
    this.refreshed = Date.now();
  }

  /** Refuses new asks, fails the waiting ones, removes the reply stream. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.reader.disconnect();
    await this.loop;
    this.waiters.close();
    // Best effort: a stream left behind expires by itself (REPLY_STREAM_TTL_MS).
    await this.redis.del(this.stream).catch(() => undefined);
  }
}
