import type { Logger } from '../../log.js';
import { TELL_TOPIC } from '../../actors/runtime/ports.js';
import type { TransactionSql } from 'postgres';
import type { Sql } from '../../store/db.js';
import { writeSystemOutbox } from '../../store/outbox-writes.js';

export interface SagaSweepOptions {
  /** A saga that has not moved for this long is sent its pending step again, ms. */
  resumeAfterMs: number;
}

/**
 * Finds conversion sagas, and payouts still reserving, that have not moved for `resumeAfterMs`,
 * and tells each to `resume`: it sends the step it waits on again (docs/design/token-conversion.md).
 * A saga waiting on its swap is the exception: the sweep looks for the fill on the ledger and
 * tells the saga of it, and otherwise leaves it (and logs it) for an operator. A conversion still
 * reserving is looked for on the ledger first too (its hold tells the pool), then resumed.
 * Tells are durable and at least once, so a saga waits that long only when a step was refused
 * outright (a pool not yet seeded) or dead-lettered; every step is applied once by its receiver, so
 * sending it again is always safe. Every worker runs one; a transaction-scoped advisory lock lets
 * one sweep at a time. The tells go through the outbox like any other (the relays' poll posts them).
 */
export class SagaSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly d: {
      sql: Sql;
      log: Logger;
      clock: () => Date;
      options: SagaSweepOptions;
    },
  ) {}

  start(): this {
    const every = Math.max(1_000, Math.floor(this.d.options.resumeAfterMs / 2));
    this.timer = setInterval(() => {
      this.running = this.sweepOnce().catch((err: unknown) =>
        this.d.log.warn({ err }, 'saga sweep failed; next round retries'),
      );
    }, every);
    this.timer.unref();
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep: how many sagas it told something. */
  async sweepOnce(): Promise<number> {
    const now = this.d.clock();
    const cutoff = new Date(now.getTime() - this.d.options.resumeAfterMs).toISOString();
    const { told, waiting } = await this.d.sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('hearth.saga-sweep')) AS ok`;
      if (!lock?.ok) return { told: 0, waiting: 0 };
      const stale = await tx<{ type: string; key: string; status: string }[]>`
        SELECT 'conversion' AS type, key, status FROM conversion_views
          WHERE running AND doc ->> 'updatedAt' < ${cutoff}
        UNION ALL
        SELECT 'order' AS type, key, status FROM order_views WHERE status = 'reserving' AND doc ->> 'updatedAt' < ${cutoff}
        LIMIT 1000`;
      const tells: Array<{ type: string; key: string; message: Record<string, unknown> }> = [];
      let waiting = 0;
      for (const saga of stale) {
        const beforeFill = saga.type === 'conversion' && (saga.status === 'reserving' || saga.status === 'swapping');
        // A swap is never sent again blindly: queued behind a backlog, it could fill twice. If the
        // pool filled it (its answer lost), the ledger has the fill: the saga is told it. A saga
        // still reserving may be past its swap too: its hold told the pool (logic.ts, chained).
        const fill = beforeFill ? await fillOf(tx, `${saga.key}:swap`) : undefined;
        if (fill) tells.push({ type: 'conversion', key: saga.key, message: swapped(saga.key, fill) });
        else if (saga.status !== 'swapping')
          tells.push({ type: saga.type, key: saga.key, message: { kind: 'resume' } });
        else waiting++;
      }
      // One tell per saga and sweep (the sweep's time is the message id).
      const at = now.toISOString();
      await writeSystemOutbox(
        tx,
        tells.map((t) => ({
          topic: TELL_TOPIC,
          sender: 'saga-sweep',
          key: `${t.type}:${t.key}`,
          msgId: at,
          seq: 0,
          payload: t,
        })),
      );
      return { told: tells.length, waiting };
    });
    if (told > 0) {
      this.d.log.warn(
        { sagas: told, resumeAfterMs: this.d.options.resumeAfterMs },
        'saga sweep resumed sagas that had not moved',
      );
    }
    if (waiting > 0) {
      this.d.log.warn(
        { sagas: waiting },
        "conversions wait on a swap the ledger has no fill for: see the pool's dead letters (operators' console)",
      );
    }
    return told;
  }
}

interface Fill {
  assetIn: string;
  amountIn: string;
  assetOut: string;
  amountOut: string;
}

/** The fill the pool recorded for a swap step, in its ledger entry (written once, or stored with its block before). */
async function fillOf(tx: Sql | TransactionSql, step: string): Promise<Fill | undefined> {
  const [row] = await tx<{ fill: Fill }[]>`
    SELECT coalesce(payload, body::jsonb -> 'payload') -> 'fill' AS fill FROM ledger_entries WHERE ref = ${step}
    LIMIT 1`;
  return row?.fill ?? undefined;
}

function swapped(conversion: string, fill: Fill): Record<string, unknown> {
  return { kind: 'swapped', id: `${conversion}:swap`, outcome: { filled: true, ...fill } };
}
