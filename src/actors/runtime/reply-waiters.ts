import { randomBytes } from 'node:crypto';
import { AppError, errorCodes, type ErrorCode } from '../../errors/index.js';
import type { Metrics } from '../../metrics.js';
import type { ReplyEntry } from './entry-codec.js';

export interface ReplyWaitersOptions {
  /** Deadline of an ask when the caller gives none, ms. */
  defaultTimeoutMs: number;
  /** Asks in flight before new ones are refused with OVERLOADED. */
  maxInFlight: number;
}

interface Waiter {
  resolve: (value: unknown) => void;
  /** An AppError, or what failed the mailbox write (a message JSON cannot hold). */
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * The asks of one gateway waiting for their replies, whatever carries them: each ask gets a
 * correlation id and a deadline, and a reply settles the ask its id names. Shared by the Redis
 * client and the in-memory one, so both answer a late, refused or unreadable reply alike.
 */
export class ReplyWaiters {
  private readonly waiters = new Map<string, Waiter>();
  private closed = false;
  /**
   * Correlation ids: a random prefix per gateway (a restarted gateway with the same id never
   * matches a reply meant for its previous life) and a counter, cheaper than a UUID per ask.
   */
  private readonly corrPrefix = `${randomBytes(9).toString('base64url')}.`;
  private corrSeq = 0;

  constructor(
    private readonly opts: ReplyWaitersOptions,
    private readonly metrics: Metrics,
  ) {}

  get size(): number {
    return this.waiters.size;
  }

  /**
   * Starts an ask of `type`: `post` writes the message with the ask's correlation id; the promise
   * is the reply's. Not an async function: a failed write settles the reply with its error (and
   * stops the deadline), so the caller holds one promise only.
   */
  ask(type: string, timeoutMs: number | undefined, post: (corr: string) => Promise<unknown>): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(new AppError('SHUTTING_DOWN', 'this gateway is shutting down', undefined, true));
    }
    if (this.waiters.size >= this.opts.maxInFlight) {
      return Promise.reject(new AppError('OVERLOADED', 'too many requests in flight; retry later', undefined, true));
    }
    const deadline = timeoutMs ?? this.opts.defaultTimeoutMs;
    this.metrics.asks.inc({ type });
    const corr = this.corrPrefix + (++this.corrSeq).toString(36);
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.waiters.delete(corr)) return;
        this.metrics.asksTimedOut.inc({ type });
        reject(
          new AppError(
            'ASK_TIMEOUT',
            `no answer from ${type} within ${deadline} ms; the operation may still apply`,
            undefined,
            true,
          ),
        );
      }, deadline);
      this.waiters.set(corr, { resolve, reject, timer });
    });
    let posted: Promise<unknown>;
    try {
      posted = post(corr);
    } catch (err) {
      posted = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    posted.catch((err: unknown) => this.take(corr)?.reject(err));
    return reply;
  }

  /** Settles the ask a reply names; a reply nobody waits for (late, or another life's) is dropped. */
  settle(r: ReplyEntry): void {
    const w = this.take(r.corr);
    if (!w) return;
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

  /** Refuses new asks and fails the waiting ones. Idempotent. */
  close(): void {
    this.closed = true;
    for (const corr of [...this.waiters.keys()]) {
      this.take(corr)?.reject(new AppError('SHUTTING_DOWN', 'this gateway is shutting down', undefined, true));
    }
  }

  private take(corr: string): Waiter | undefined {
    const w = this.waiters.get(corr);
    if (!w) return undefined;
    this.waiters.delete(corr);
    clearTimeout(w.timer);
    return w;
  }
}

function toAppError(body: unknown): AppError {
  const b = (body ?? {}) as { code?: string; message?: string; details?: unknown };
  const code = (b.code && b.code in errorCodes ? b.code : 'ACTOR_FAILED') as ErrorCode;
  return new AppError(code, b.message ?? 'the actor refused the message', b.details);
}
