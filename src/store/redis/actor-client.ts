import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { AppError, errorCodes, type ErrorCode } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { Backoff, sleep } from '../../actors/runtime/backoff.js';
import { decodeReply } from '../../actors/runtime/entry-codec.js';
import type { Keys } from './keys.js';
import { mailboxEntry, type ActorMessage } from './mailbox-post.js';
import { MailboxWriter } from './mailbox-writer.js';
import type { ActorRef } from '../../actors/runtime/actor-ref.js';

export interface ActorClientOptions {
  /** Deadline of an ask when the caller gives none, ms. */
  defaultTimeoutMs: number;
  /** Asks in flight before new ones are refused with OVERLOADED. */
  maxInFlight: number;
  /** Partitions of a type (must match the workers'). */
  partitionsOf: (type: string) => number;
}

export type { ActorMessage } from './mailbox-post.js';

interface Waiter {
  resolve: (value: unknown) => void;
  /** An AppError, or what failed the mailbox write (a message JSON cannot hold). */
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
  type: string;
}

/** How long the reply stream outlives a gateway that died without cleaning up. */
const REPLY_STREAM_TTL_MS = 60 * 60 * 1000;

/**
 * The gateway side of the runtime: `tell()` posts to an actor's mailbox; `ask()` also waits for
 * the reply on this process's own reply stream, matched by correlation id, until a deadline.
 */
export class ActorClient {
  private readonly waiters = new Map<string, Waiter>();
  private readonly stream: string;
  private readonly abort = new AbortController();
  private lastId = '0';
  private loop: Promise<void> | undefined;
  private closed = false;
  private refreshed = 0;
  /**
   * Correlation ids: a random prefix per client (a restarted gateway with the same id never
   * matches a reply meant for its previous life) and a counter, cheaper than a UUID per ask.
   */
  private readonly corrPrefix = `${randomBytes(9).toString('base64url')}.`;
  private corrSeq = 0;
  private readonly writer: MailboxWriter;

  constructor(
    private readonly redis: RedisClient,
    /** A connection of its own: the blocking XREAD holds it. */
    private readonly reader: RedisClient,
    private readonly keys: Keys,
    readonly gatewayId: string,
    private readonly opts: ActorClientOptions,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.stream = keys.replies(gatewayId);
    this.writer = new MailboxWriter(redis);
  }

  /** Creates the reply stream (workers reply with NOMKSTREAM) and starts reading it. */
  async start(): Promise<void> {
    await this.createStream();
    this.loop = this.readReplies();
  }

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
   * Not an async function: the one promise an ask makes is its reply's. The mailbox write is not
   * awaited here; if it fails, it settles the reply with its error (and stops the deadline).
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
    timeoutMs = this.opts.defaultTimeoutMs,
  ): Promise<unknown> {
    const type = typeof actor === 'string' ? actor : actor.type;
    if (this.closed) {
      return Promise.reject(new AppError('SHUTTING_DOWN', 'this gateway is shutting down', undefined, true));
    }
    if (this.waiters.size >= this.opts.maxInFlight) {
      return Promise.reject(new AppError('OVERLOADED', 'too many requests in flight; retry later', undefined, true));
    }
    this.metrics.asks.inc({ type });
    const corr = this.corrPrefix + (++this.corrSeq).toString(36);
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.waiters.delete(corr)) return;
        this.metrics.asksTimedOut.inc({ type });
        reject(
          new AppError(
            'ASK_TIMEOUT',
            `no answer from ${type} within ${timeoutMs} ms; the operation may still apply`,
            undefined,
            true,
          ),
        );
      }, timeoutMs);
      this.waiters.set(corr, { resolve, reject, timer, type });
    });
    this.post(type, key, msg, this.stream, corr).catch((err: unknown) => {
      const w = this.waiters.get(corr);
      if (!w) return;
      clearTimeout(w.timer);
      this.waiters.delete(corr);
      w.reject(err);
    });
    return reply;
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
          this.settle(fields);
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

  private settle(fields: string[]): void {
    const r = decodeReply(fields);
    const w = this.waiters.get(r.corr);
    if (!w) return;
    this.waiters.delete(r.corr);
    clearTimeout(w.timer);
    let body: unknown;
    try {
      body = JSON.parse(r.body);
    } catch {
      w.reject(new AppError('INTERNAL', 'unreadable reply from actor'));
      return;
    }
    if (r.ok) w.resolve(body);
    else w.reject(toAppError(body));
  }

  /** Refuses new asks, fails the waiting ones, removes the reply stream. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.reader.disconnect();
    await this.loop;
    for (const [corr, w] of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new AppError('SHUTTING_DOWN', 'this gateway is shutting down', undefined, true));
      this.waiters.delete(corr);
    }
    // Best effort: a stream left behind expires by itself (REPLY_STREAM_TTL_MS).
    await this.redis.del(this.stream).catch(() => undefined);
  }
}

function toAppError(body: unknown): AppError {
  const b = (body ?? {}) as { code?: string; message?: string; details?: unknown };
  const code = (b.code && b.code in errorCodes ? b.code : 'ACTOR_FAILED') as ErrorCode;
  return new AppError(code, b.message ?? 'the actor refused the message', b.details);
}
