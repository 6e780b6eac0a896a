import { z } from 'zod';
import type { Logger } from '../../log.js';
import { Backoff, sleep } from './backoff.js';
import type { Keys } from './keys.js';
import { mailboxEntry } from './mailbox-post.js';
import { partitionOf } from './keys.js';
import { postOnce } from './post-once.js';
import type { TellOutbox } from './ports.js';
import type { RedisClient } from './redis.js';

/** An outbox row of the tell topic, as tellEffect() wrote it. */
const tellPayload = z.object({
  type: z.string().min(1),
  key: z.string().min(1),
  message: z.looseObject({ kind: z.string().min(1) }),
});

interface OutboxRelayOptions {
  /** Rows per transaction at most. */
  batch: number;
  /** How often the outbox is looked at when nothing pokes the relay, ms. */
  pollMs: number;
}

/**
 * How long a posted tell's mark lives, s: longer than a relay's batch can stay unacknowledged
 * (the outbox gives up a batch whose relay went silent after 60 s: store/tell-outbox.ts) plus
 * its next poll, so a batch posted again after a lost commit adds nothing.
 */
const TOLD_TTL_S = 300;

export interface OutboxRelayDeps {
  outbox: TellOutbox;
  redis: RedisClient;
  keys: Keys;
  partitionsOf: (type: string) => number;
  /** The actor types of this deployment: a tell to another one is set aside, not posted. */
  types: ReadonlySet<string>;
  log: Logger;
  options: OutboxRelayOptions;
}

/**
 * Posts the outbox's `tell` rows to the mailboxes they name: how one actor reaches another
 * without losing a message. The rows were written in the commit of the sender's new state
 * (tell-effect.ts); the relay takes a batch of them that no other relay holds (every worker runs
 * one), writes them to Redis, and the outbox removes them only once Redis holds every entry
 * (store/tell-outbox.ts). A crash or a Redis outage in between rolls the delete back, and the
 * rows are posted again; each post sets a mark for the row's outbox id in the mailbox's slot in
 * the same script (post-once.ts), so a row posted again within TOLD_TTL_S adds nothing, and the
 * runtime applies each mailbox entry once: a tell is applied once. Receivers still apply a
 * repeated step as a no-op (by the id the message carries): a saga may send a step again. One relay posts its batch in the order the rows were written; two
 * relays may interleave, so no receiver depends on the order of messages from different commits.
 *
 * A worker pokes its relay after a commit that wrote tell rows, so a message normally leaves
 * within a Redis write of the commit; the poll finds what a crashed worker left.
 */
export class OutboxRelay {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private poked = false;
  private wake: (() => void) | undefined;

  constructor(private readonly d: OutboxRelayDeps) {}

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /** There are new rows: look now (or right after the batch in hand). */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(100, 10_000);
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        this.poked = false;
        const posted = await this.relayBatch();
        backoff.reset();
        if (posted < this.d.options.batch && !this.poked) await this.idle();
      } catch (err) {
        if (signal.aborted) break;
        const delay = backoff.next();
        this.d.log.warn(
          { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
          'outbox relay failed; the rows stay in the outbox',
        );
        await sleep(delay, signal);
      }
    }
  }

  /** Waits for a poke, the poll interval, or close(). */
  private async idle(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, this.d.options.pollMs);
    });
    clearTimeout(timer);
    this.wake = undefined;
  }

  /** Takes up to a batch of tells, posts them, and lets the outbox remove them. How many it took. */
  private relayBatch(): Promise<number> {
    // Every write of the batch goes in one turn, so in one call per mailbox, in row order.
    return this.d.outbox.relay(this.d.options.batch, (tells) =>
      Promise.all(tells.map((t) => this.post(t.id, t.payload))).then(() => undefined),
    );
  }

  private async post(id: string, payload: unknown): Promise<void> {
    const parsed = tellPayload.safeParse(payload);
    if (!parsed.success || !this.d.types.has(parsed.data.type)) {
      // A sender's bug: kept in the log (with no message body), never retried forever.
      this.d.log.error(
        { outboxId: id, type: parsed.success ? parsed.data.type : undefined },
        'an outbox tell names no actor of this deployment; dropped',
      );
      return;
    }
    const { type, key, message } = parsed.data;
    const { stream, fields } = mailboxEntry(this.d.keys, this.d.partitionsOf, { type, key }, message);
    const mark = this.d.keys.told(type, partitionOf(key, this.d.partitionsOf(type)), id);
    await postOnce(this.d.redis, stream, mark, TOLD_TTL_S, fields);
  }
}
