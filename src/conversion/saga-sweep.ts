import type { Logger } from '../log.js';
import { TELL_TOPIC } from '../actors/runtime/ports.js';
import type { Sql } from '../store/db.js';

export interface SagaSweepOptions {
  /** A saga that has not moved for this long is sent its pending step again, ms. */
  resumeAfterMs: number;
}

/**
 * Finds conversion sagas, and payouts still reserving, that have not moved for `resumeAfterMs`,
 * and tells each to `resume`: it sends the step it waits on again (docs/design/token-conversion.md).
 * Tells are durable and at least once, so a saga waits that long only when a step was refused
 * outright (a pool not yet seeded) or dead-lettered; every step is applied once by its receiver, so
 * sending it again is always safe. Every worker runs one; a transaction-scoped advisory lock lets
 * one sweep at a time. The tells go through the outbox like any other (the relay posts them).
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
      /** Called after a sweep wrote tells (the relay's poke). */
      onTold: () => void;
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

  /** One sweep: how many sagas it told to resume. */
  async sweepOnce(): Promise<number> {
    const now = this.d.clock();
    const cutoff = new Date(now.getTime() - this.d.options.resumeAfterMs).toISOString();
    const told = await this.d.sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('hearth.saga-sweep')) AS ok`;
      if (!lock?.ok) return 0;
      const stale = await tx<{ type: string; key: string }[]>`
        SELECT 'conversion' AS type, key FROM conversion_views
          WHERE status IN ('reserving', 'swapping', 'settling', 'compensating') AND doc ->> 'updatedAt' < ${cutoff}
        UNION ALL
        SELECT 'order' AS type, key FROM order_views WHERE status = 'reserving' AND doc ->> 'updatedAt' < ${cutoff}
        LIMIT 1000`;
      if (stale.length === 0) return 0;
      const at = now.toISOString();
      await tx`
        INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
        SELECT ${TELL_TOPIC}, 'saga-sweep', x.type || ':' || x.key, ${at}, 0,
               jsonb_build_object('type', x.type, 'key', x.key, 'message', jsonb_build_object('kind', 'resume'))
        FROM unnest(${tx.array(stale.map((r) => r.type))}::text[], ${tx.array(stale.map((r) => r.key))}::text[]) AS x(type, key)
        ON CONFLICT DO NOTHING`;
      return stale.length;
    });
    if (told > 0) {
      this.d.log.warn(
        { sagas: told, resumeAfterMs: this.d.options.resumeAfterMs },
        'saga sweep resumed sagas that had not moved',
      );
      this.d.onTold();
    }
    return told;
  }
}
