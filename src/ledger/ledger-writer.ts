import { Backoff, sleep } from '../actors/runtime/backoff.js';
import type { Logger } from '../log.js';
import type { Sql } from '../store/db.js';
import type { BlockAnchor } from './anchor-port.js';
import { anchorPending } from './anchoring.js';
import { appendBlock } from './journal.js';
import { publicReason } from './public-reason.js';

/** How long close() waits for the loops (an inclusion poll can take a block time or more). */
const CLOSE_GRACE_MS = 2_000;

interface LedgerWriterOptions {
  /** Entries per block at most (LEDGER_BATCH_SIZE). */
  batchSize: number;
  /** How often entries are chained, ms (LEDGER_BATCH_MS): no entry waits longer for its block. */
  batchMs: number;
  /** How long the writer's lease lives without renewal, ms (renewed every third of it). */
  leaseMs: number;
}

export interface LedgerWriterDeps {
  sql: Sql;
  log: Logger;
  ownerId: string;
  clock: () => Date;
  options: LedgerWriterOptions;
  /** The cosmos backend; absent on the journal backend. */
  chain?: BlockAnchor;
}

type Part = 'drain' | 'anchor';

/**
 * The ledger writer (not an actor: a singleton loop under a lease): one per deployment, wherever its lease is held (every worker process runs
 * one; the others stand by and take over when the holder's lease lapses). A heartbeat keeps the
 * lease; while it is held, one loop chains the entries not in a block yet into journal blocks — a
 * full block at once, a partial one every `batchMs` — and, on the cosmos backend, a second loop
 * anchors each block in one transaction, so a slow chain never delays the journal. Failures are
 * retried with back-off and recorded in `ledger_head.last_error` for /health; an entry is never
 * dropped (it waits, written, until its block commits).
 */
export class LedgerWriter {
  private readonly abort = new AbortController();
  private loops: Promise<void> | undefined;
  private held = false;
  private readonly errors: Record<Part, string | null> = { drain: null, anchor: null };
  /** What `ledger_head.last_error` holds as far as this process knows (undefined: not known yet). */
  private written: string | null | undefined;

  constructor(private readonly d: LedgerWriterDeps) {}

  start(): void {
    const chain = this.d.chain;
    this.loops ??= Promise.all([
      this.heartbeat(),
      this.repeat('drain', () => this.drain()),
      ...(chain
        ? [this.repeat('anchor', () => anchorPending(this.d.sql, chain, this.d.clock, () => this.mayWrite()))]
        : []),
    ]).then(() => undefined);
  }

  /**
   * Stops and gives the lease up. Idempotent. A block being written commits or rolls back with
   * its transaction; an anchor waiting for its transaction's inclusion is abandoned after a
   * short grace (its signed bytes are saved: whoever resumes re-broadcasts the same transaction).
   */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.race([this.loops, sleep(CLOSE_GRACE_MS)]);
    // Best effort: a lease not given up lapses at lease_until, and the next writer takes it then.
    await this.d.sql`
      UPDATE ledger_head SET lease_owner = NULL, lease_until = NULL WHERE id = 1 AND lease_owner = ${this.d.ownerId}`.catch(
      () => undefined,
    );
  }

  private mayWrite(): boolean {
    return this.held && !this.abort.signal.aborted;
  }

  private async heartbeat(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const was = this.held;
        this.held = await this.holdLease();
        if (this.held && !was) this.d.log.info({ owner: this.d.ownerId }, 'ledger writer lease taken');
      } catch (err) {
        this.held = false;
        this.d.log.warn(
          { err: publicReason(err instanceof Error ? err.message : String(err)) },
          'ledger lease renewal failed',
        );
      }
      await sleep(this.d.options.leaseMs / 3, signal);
    }
  }

  /** Runs one part every `batchMs` while the lease is held, with back-off after a failure. */
  private async repeat(part: Part, work: () => Promise<unknown>): Promise<void> {
    const backoff = new Backoff(100, 10_000);
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (!this.mayWrite()) {
        await sleep(this.d.options.batchMs, signal);
        continue;
      }
      try {
        await work();
        await this.recordError(part, null);
        backoff.reset();
        await sleep(this.d.options.batchMs, signal);
      } catch (err) {
        if (signal.aborted) break;
        const reason = err instanceof Error ? err.message : String(err);
        const delay = backoff.next();
        // Cut like the recorded error: an RPC URL in the message may carry a provider's API key.
        this.d.log.warn({ err: publicReason(reason), part, retryInMs: delay }, 'ledger write failed');
        // Logged just above; recording it needs the database, which is often what failed.
        await this.recordError(part, reason).catch(() => undefined);
        await sleep(delay, signal);
      }
    }
  }

  /** Writes blocks until less than a full one waits. */
  private async drain(): Promise<void> {
    const { sql, log, options, clock } = this.d;
    while (this.mayWrite()) {
      const started = performance.now();
      const block = await appendBlock(sql, { maxEntries: options.batchSize, now: clock(), anchor: !!this.d.chain });
      if (!block) return;
      log.info(
        { height: block.height, entries: block.entryCount, ms: Math.round(performance.now() - started) },
        'ledger block written',
      );
      if (block.entryCount < options.batchSize) return;
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

  /** Keeps `ledger_head.last_error` equal to the first failing part's reason (cleared on success). */
  private async recordError(part: Part, reason: string | null): Promise<void> {
    this.errors[part] = reason === null ? null : publicReason(reason);
    const current = this.errors.drain ?? this.errors.anchor;
    if (current === this.written) return;
    await this.d.sql`
      UPDATE ledger_head SET last_error = ${current},
             last_error_at = ${current === null ? null : this.d.clock().toISOString()}
      WHERE id = 1`;
    this.written = current;
  }
}
