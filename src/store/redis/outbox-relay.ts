import { z } from 'zod';
import type { Logger } from '../../log.js';
import { Backoff, sleep } from '../../actors/runtime/backoff.js';
import type { Keys } from './keys.js';
import { mailboxEntry } from './mailbox-post.js';
import { partitionOf } from '../../actors/runtime/partitioning.js';
import { postEachOnce, type OncePost } from './post-once.js';
import { createHash } from 'node:crypto';
import { batchedTells, tellBatchRow } from '../tell-batch.js';
import { type BatchCommit, type OutboxTell, type TellOutbox, type TellSender } from '../../actors/runtime/ports.js';
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
  /** How often the outbox is looked at for tells no worker posted, ms. */
  pollMs: number;
  /** How old a tell must be before the poll takes it: younger ones are their worker's to post, ms. */
  graceMs: number;
}

/**
 * How long a posted tell's mark lives, s: longer than a relay's batch can stay unacknowledged
 * (the outbox gives up a batch whose relay went silent after 60 s: store/tell-outbox.ts) plus
 * its next poll, so a batch posted again after a lost commit adds nothing.
 */
const TOLD_TTL_S = 300;

/** Posted rows deleted per statement at most. */
const FORGET_BATCH = 1_024;

/** A tell's mark id: its sender identity, hashed (the same for every post of it, from any row). */
function markOf(s: TellSender): string {
  return createHash('sha256')
    .update(`${s.type}\u0000${s.key}\u0000${s.msgId}\u0000${s.seq}`)
    .digest('hex')
    .slice(0, 32);
}

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
 * (tell-effect.ts), and the worker that committed them posts them at once (`publish`) and then
 * deletes them. A worker that dies in between, or a post that fails, leaves them: every worker's
 * relay looks every `pollMs` for rows older than `graceMs`, takes a batch no other relay holds,
 * posts it, and the outbox removes it only once Redis holds every entry (store/tell-outbox.ts).
 *
 * A tell may so be posted twice (its worker's post and a relay's, or a relay's again after its
 * commit was lost): every post sets a mark for the row's identity in the mailbox's slot in the
 * same script (post-once.ts), so the second adds nothing while the mark lives (TOLD_TTL_S), and
 * the runtime applies each mailbox entry once: a tell is applied once. One commit's tells are
 * posted in the order they were written, one round's commit before the next; across senders the
 * order is not promised, and a saga may send a step again, so receivers apply a repeated step as a
 * no-op (by the id the message carries).
 */
export class OutboxRelay {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Tells committed in this tick, posted at its end (see {@link publish}). */
  private publishing: OutboxTell[] = [];
  /** The outbox rows of those tells (one per batch: tell-batch.ts), deleted once they are posted. */
  private publishedRows: TellSender[] = [];
  /** Posted rows still to delete, and the deletes in progress. */
  private forgetting: TellSender[] = [];
  private forgotten: Promise<void> | undefined;

  constructor(private readonly d: OutboxRelayDeps) {}

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /**
   * Posts the tells of a batch this worker has just committed, then deletes their rows (a failure
   * leaves them to the relays' poll, which posts them again as a no-op). The batches of one group
   * commit are handed in within one tick: their tells go together at the end of it, in the order
   * given, as one script call (post-once.ts), so one partition's commits post in their order. Their
   * rows are then deleted by one statement at a time, whatever piled up meanwhile: a delete per
   * batch was a statement (and a WAL flush) per busy partition per round, measured: 14 a round of
   * 64 redemptions.
   */
  publish(batch: BatchCommit): void {
    const row = tellBatchRow(batch);
    if (!row) return;
    if (this.publishing.length === 0) queueMicrotask(() => this.postPublished());
    this.publishing.push(...batchedTells(batch.type, row.payload));
    this.publishedRows.push(row.sender);
  }

  private postPublished(): void {
    const tells = this.publishing;
    const rows = this.publishedRows;
    this.publishing = [];
    this.publishedRows = [];
    this.post(tells)
      .then(() => this.forgetLater(rows))
      .catch((err: unknown) =>
        this.d.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'posting tells after a commit failed; the relay posts them from the outbox',
        ),
      );
  }

  /** Deletes posted rows, one statement at a time; a row left behind is posted again as a no-op. */
  private forgetLater(senders: readonly TellSender[]): void {
    this.forgetting.push(...senders);
    this.forgotten ??= this.forgetAll().finally(() => (this.forgotten = undefined));
  }

  private async forgetAll(): Promise<void> {
    while (this.forgetting.length > 0) {
      const sent = this.forgetting.splice(0, FORGET_BATCH);
      await this.d.outbox
        .forget(sent)
        .catch((err: unknown) =>
          this.d.log.warn(
            { err: err instanceof Error ? err.message : String(err), rows: sent.length },
            'deleting posted tells failed; the relay posts them again, as a no-op',
          ),
        );
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
    await this.forgotten;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(100, 10_000);
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const posted = await this.relayBatch();
        backoff.reset();
        if (posted < this.d.options.batch) await this.idle();
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

  /** Waits for the poll interval, or close(). */
  private async idle(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, this.d.options.pollMs);
    });
    clearTimeout(timer);
    this.wake = undefined;
  }

  /** Takes up to a batch of rows, posts their tells, and lets the outbox remove them. How many rows it took. */
  private relayBatch(): Promise<number> {
    // Every write of the batch goes in one turn, so in one call per mailbox, in row order.
    return this.d.outbox.relay(this.d.options.batch, this.d.options.graceMs, (tells) => this.post(tells));
  }

  /** Posts tells in their order, each once (post-once.ts); one that names no actor is dropped. */
  private async post(tells: ReadonlyArray<{ sender: TellSender; payload: unknown }>): Promise<void> {
    const posts: OncePost[] = [];
    for (const { sender, payload } of tells) {
      const parsed = tellPayload.safeParse(payload);
      if (!parsed.success || !this.d.types.has(parsed.data.type)) {
        // A sender's bug: kept in the log (with no message body), never retried forever.
        this.d.log.error(
          { sender: { type: sender.type, key: sender.key }, type: parsed.success ? parsed.data.type : undefined },
          'an outbox tell names no actor of this deployment; dropped',
        );
        continue;
      }
      const { type, key, message } = parsed.data;
      const { stream, fields } = mailboxEntry(this.d.keys, this.d.partitionsOf, { type, key }, message);
      posts.push({
        stream,
        fields,
        mark: this.d.keys.told(type, partitionOf(key, this.d.partitionsOf(type)), markOf(sender)),
      });
    }
    await postEachOnce(this.d.redis, posts, TOLD_TTL_S);
  }
}
