import { sleep } from '../../actors/runtime/backoff.js';
import type { Logger } from '../../log.js';
import type { Sql } from '../../store/db.js';

/** How long an ended or idle USSD session's snapshot is kept (for support questions), ms. */
export const USSD_RETENTION_MS = 24 * 60 * 60 * 1000;
const EVERY_MS = 10 * 60 * 1000;
const BATCH = 5_000;

/**
 * USSD sessions live minutes, but their snapshots would stay forever: every worker deletes
 * those idle for a day, a bounded batch at a time (running it twice at once is harmless).
 */
export class UssdSessionJanitor {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly clock: () => Date,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  /** Deletes one batch of old session snapshots; returns how many. */
  async sweep(): Promise<number> {
    const before = new Date(this.clock().getTime() - USSD_RETENTION_MS).toISOString();
    const rows = await this.sql`
      DELETE FROM actor_snapshots WHERE (type, key) IN (
        SELECT type, key FROM actor_snapshots
        WHERE type = 'ussd' AND state ->> 'lastActivityAt' < ${before}
        LIMIT ${BATCH})`;
    return rows.count;
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const n = await this.sweep();
        if (n > 0) this.log.info({ deleted: n }, 'old ussd sessions deleted');
        if (n === BATCH) continue;
      } catch (err) {
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'ussd session sweep failed');
      }
      await sleep(EVERY_MS, this.abort.signal);
    }
  }
}
