import { createHash, randomUUID } from 'node:crypto';
import { withTimeout } from '../../common/with-timeout.js';
import { seal, unseal } from '../../crypto/sealed.js';
import { AppError, isAppError } from '../../errors/index.js';
import type { Principal } from '../auth/principal.js';
import type { HttpContext } from './context.js';
import { errorReply } from './error-mapper.js';
import type { Reply } from './reply.js';
import type { Claim, IdempotencyRows } from './idempotency-rows.js';

const keyShape = /^[A-Za-z0-9._:-]{1,255}$/;

/** Marks a kept answer as sealed, and names the key it is sealed under (see `crypto/sealed`). */
const SEALED = 'sealed:';
const PURPOSE = 'idempotent-reply';

/**
 * `Idempotency-Key` on a POST: the first request with a key runs and its answer is kept (per API
 * key, for the life of the row); the same key with the same method, path and body replays that
 * answer with `Idempotent-Replayed: true`; with another request it is refused (409). A 5xx or a
 * timeout is not kept, so the client can retry with the same key; a 4xx refusal is kept.
 *
 * A kept answer is sealed (AES-256-GCM under the deployment secret): it may hold a secret shown
 * once, such as a new API key, which must not sit in clear in the database or its backups.
 */
export class IdempotencyStore {
  /**
   * Claims of failed requests not released yet (PostgreSQL went away with the request, as in a
   * failover), by their token: released as soon as PostgreSQL takes writes again, and at once
   * when a retry of one reaches this process, so the retry is answered rather than told 409 until
   * the claim's two minutes lapse. By token, not by key: in a failover one key's first try may
   * leave a claim whose INSERT's outcome was lost and its second try another that never was, and
   * a mark by key kept only the second (traced: the first lapsed after two minutes).
   */
  private readonly unreleased = new Map<string, Claim>();
  /**
   * Claims of requests whose client was answered 503 while their handler went on (the deadline
   * passed, or PostgreSQL went down): a retry of one releases it and runs again, rather than being
   * told 409 for as long as the handler hangs on a connection a failover left behind (traced: two
   * minutes, in a switchover). Running again is safe as for any failed try: what a keyed request
   * does is idempotent by its request id. Only a retry releases them, never the timer: a handler
   * that finishes after all keeps its answer unless a retry has come.
   */
  private readonly abandoned = new Map<string, Claim>();
  private releasing: NodeJS.Timeout | undefined;

  constructor(
    private readonly rows: IdempotencyRows,
    /** PIN_ENCRYPTION_KEY: the deployment secret the kept answers are sealed under. */
    private readonly secret: string,
  ) {}

  async run(ctx: HttpContext, who: Principal, handler: () => Promise<Reply>): Promise<Reply> {
    const key = ctx.headers['idempotency-key'];
    if (key === undefined) return handler();
    if (!keyShape.test(key)) {
      throw new AppError('VALIDATION_FAILED', 'Idempotency-Key must be 1-255 letters, digits, . _ : -');
    }
    const body = await ctx.body();
    const hash = createHash('sha256').update(`${ctx.method} ${ctx.path}\n`).update(body).digest('hex');
    const claim = randomUUID();
    const mine = { owner: who.keyId, key, claim };
    const claimed = await this.rows.claim(mine, hash).catch((err: unknown) => {
      // The claim may have committed with the connection lost before its answer: release it
      // (if it is there) as soon as PostgreSQL is back.
      this.releaseLater(mine);
      throw err;
    });
    if (!claimed) return this.replay(who.keyId, key, hash, () => this.run(ctx, who, handler));
    const abandon = () => this.abandoned.set(claim, mine);
    if (ctx.answered.aborted) abandon();
    else ctx.answered.addEventListener('abort', abandon, { once: true });
    try {
      return await this.answer(ctx, mine, handler);
    } finally {
      ctx.answered.removeEventListener('abort', abandon);
      this.abandoned.delete(claim);
    }
  }

  /** Runs the claimed request and keeps its answer, or releases the claim when it failed. */
  private async answer(ctx: HttpContext, mine: Claim, handler: () => Promise<Reply>): Promise<Reply> {
    let reply: Reply;
    try {
      reply = await handler();
    } catch (err) {
      // A refusal (4xx) is an answer like any other and is kept; anything else may be retried.
      if (!(isAppError(err) && err.status < 500)) {
        await this.forget(mine);
        throw err;
      }
      // The same body (and headers) as the answer without a key: statusCode, message, error.
      reply = errorReply(err, ctx.log);
    }
    if (reply.status >= 500) await this.forget(mine);
    else {
      const text = typeof reply.body === 'string' ? reply.body : (reply.body?.toString('utf8') ?? '');
      const kept = `${SEALED}${seal(this.secret, PURPOSE, text)}`;
      // Only into its own claim: a retry may have released it (its client was answered 503
      // meanwhile) and claimed the key anew; that retry keeps its own answer.
      await this.rows.keep(mine, reply.status, kept).catch(async (err: unknown) => {
        // The answer could not be kept: the retry runs the request again (what it does is
        // idempotent by its request id: a redemption is answered from its voucher).
        await this.forget(mine);
        throw err;
      });
    }
    return reply;
  }

  private async replay(owner: string, key: string, hash: string, again: () => Promise<Reply>): Promise<Reply> {
    const row = await this.rows.find(owner, key);
    // A request of this process made this claim and failed, and it is not released yet (the
    // release failed, or still waits on a connection a failover left hanging), or its client was
    // answered 503 while it went on: release it now.
    const unreleased = row?.claim ? (this.unreleased.get(row.claim) ?? this.abandoned.get(row.claim)) : undefined;
    if (row && row.status === null && unreleased) {
      await withTimeout(
        this.release(unreleased),
        RELEASE_WAIT_MS,
        () => new AppError('UNAVAILABLE', 'PostgreSQL does not answer; retry later', undefined, true),
      );
      return again();
    }
    // A first request whose process died never finished: after two minutes its claim lapses.
    if (row && row.status === null && row.stale) {
      await this.rows.dropUnanswered(owner, key);
      return again();
    }
    if (!row)
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key just failed; retry it');
    if (row.requestHash !== hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different request');
    }
    if (row.status === null) {
      throw new AppError(
        'IDEMPOTENCY_IN_PROGRESS',
        'a request with this Idempotency-Key is still running',
        undefined,
        true,
      );
    }
    return {
      status: row.status,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' },
      body: this.open(row.body ?? ''),
    };
  }

  /** A kept answer as it was sent (one kept before answers were sealed is in clear). */
  private open(kept: string): string {
    if (!kept.startsWith(SEALED)) return kept;
    const text = unseal(this.secret, PURPOSE, kept.slice(SEALED.length));
    // Sealed under another secret (PIN_ENCRYPTION_KEY was changed): the answer cannot be given again.
    if (text === undefined) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'the first answer to this Idempotency-Key can no longer be read; use a new key',
      );
    }
    return text;
  }

  /**
   * Releases the claim of a request that failed, now or (PostgreSQL gone) as soon as it can. It
   * is marked unreleased before the release is tried: a release can wait for seconds on a pool
   * whose connections a failover left hanging (measured: one waited out the connect timeout, one
   * over two minutes), and a retry that comes meanwhile must find it and release it itself, not be
   * told 409 until the claim lapses.
   */
  private async forget(c: Claim): Promise<void> {
    this.unreleased.set(c.claim, c);
    await this.release(c).catch(() => this.releaseLater(c));
  }

  private async release(c: Claim): Promise<void> {
    await this.rows.release(c);
    this.unreleased.delete(c.claim);
    this.abandoned.delete(c.claim);
  }

  /** Tries the unreleased claims every 250 ms until none is left (a process that dies leaves them to lapse). */
  private releaseLater(c: Claim): void {
    this.unreleased.set(c.claim, c);
    if (this.releasing) return;
    this.releasing = setInterval(() => {
      if (this.unreleased.size === 0) {
        clearInterval(this.releasing);
        this.releasing = undefined;
        return;
      }
      for (const claim of [...this.unreleased.values()]) void this.release(claim).catch(() => undefined);
    }, 250);
    this.releasing.unref();
  }
}

/** How long a retry waits for the release of its key's failed claim before it is answered 503. */
const RELEASE_WAIT_MS = 2_000;
