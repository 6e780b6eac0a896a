import { Backoff, sleep } from '../actors/runtime/backoff.js';
import type { Logger } from '../log.js';
import type { Sql } from '../store/db.js';
import type { BlockAnchor } from './anchor-port.js';
import { anchorPending } from './anchoring.js';
import { appendBlock } from './journal.js';

/** How long close() waits for the loop (an inclusion poll can take a block time or more). */
const CLOSE_GRACE_MS = 2_000;

export interface LedgerActorOptions {
  /** Entries per block at most (LEDGER_BATCH_SIZE). */
  batchSize: number;
  /** How often the outbox is drained, ms (LEDGER_BATCH_MS): no entry waits longer for its block. */
  batchMs: number;
  /** How long the writer's lease lives without renewal, ms. */
  leaseMs: number;
}

export interface LedgerActorDeps {
  sql: Sql;
  log: Logger;
  ownerId: string;
  clock: () => Date;
  options: LedgerActorOptions;
  /** The cosmos backend; absent on the journal backend. */
  chain?: BlockAnchor;
}

/**
 * The ledger actor: one per deployment, wherever its lease is held (every worker process runs
 * one; the others stand by and take over when the holder's lease lapses). It drains the
 * outbox's `ledger` entries into journal blocks — a full block at once, a partial one every
 * `batchMs` — and, on the cosmos backend, anchors each block in one transaction. Failures are
 * retried with back-off and recorded in `ledger_head.last_error` for /health; an entry is never
 * dropped (it stays in the outbox until its block commits).
 */
export class LedgerActor {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private lastError: string | null = null;

  constructor(private readonly d: LedgerActorDeps) {}

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops and gives the lease up. Idempotent. A block being written commits or rolls back with
   * its transaction; an anchor waiting for its transaction's inclusion is abandoned after a
   * short grace (its signed bytes are saved: whoever resumes re-broadcasts the same transaction).
   */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.race([this.loop, sleep(CLOSE_GRACE_MS)]);
    await this.d.sql`
      UPDATE ledger_head SET lease_owner = NULL, lease_until = NULL WHERE id = 1 AND lease_owner = ${this.d.ownerId}`.catch(
      () => undefined,
    );
  }

  private async run(): Promise<void> {
    const { log, options } = this.d;
    const backoff = new Backoff(100, 10_000);
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        if (!(await this.holdLease())) {
          await sleep(Math.max(options.batchMs, 500), signal);
          continue;
        }
        await this.drain();
        if (this.d.chain) await anchorPending(this.d.sql, this.d.chain, this.d.clock);
        await this.recordError(null);
        backoff.reset();
        await sleep(options.batchMs, signal);
      } catch (err) {
        if (signal.aborted) break;
        const reason = err instanceof Error ? err.message : String(err);
        const delay = backoff.next();
        log.warn({ err: reason, retryInMs: delay }, 'ledger write failed');
        await this.recordError(reason).catch(() => undefined);
        await sleep(delay, signal);
      }
    }
  }

  /** Writes blocks until the outbox holds less than a full one. */
  private async drain(): Promise<void> {
    const { sql, log, options, clock } = this.d;
    for (;;) {
      const started = performance.now();
      const block = await appendBlock(sql, { maxEntries: options.batchSize, now: clock(), anchor: !!this.d.chain });
      if (!block) return;
      log.info(
        { height: block.height, entries: block.entryCount, ms: Math.round(performance.now() - started) },
        'ledger block written',
      );
      if (block.entryCount < options.batchSize || this.abort.signal.aborted) return;
      if (!(await this.holdLease())) return;
    }
  }

  /** Takes or renews the singleton lease; false while another live process holds it. */
  private async holdLease(): Promise<boolean> {
    const rows = await this.d.sql`
      UPDATE ledger_head SET lease_owner = ${this.d.ownerId},
             lease_until = now() + ${this.d.options.leaseMs} * interval '1 millisecond'
      WHERE id = 1 AND (lease_owner IS NULL OR lease_owner = ${this.d.ownerId} OR lease_until < now())
      RETURNING 1`;
    return rows.length === 1;
  }

  private async recordError(reason: string | null): Promise<void> {
    if (reason === this.lastError) return;
    await this.d.sql`
      UPDATE ledger_head SET last_error = ${reason}, last_error_at = ${reason === null ? null : this.d.clock().toISOString()}
      WHERE id = 1`;
    this.lastError = reason;
  }
}
