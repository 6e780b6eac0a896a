import { DeferredAcks } from './deferred-acks.js';
import { MailboxBells } from './mailbox-bells.js';
import { UnreadMailboxes } from './mailbox-unread.js';
import { sendPerNode } from './node-batch.js';
import type { OutgoingReply, RawEntry } from '../../actors/runtime/ports.js';
import type { Cluster } from './redis.js';
import { RedisMailboxBase, type RedisMailboxDeps } from './redis-mailbox.js';
import { replyPerStream } from './settle-script.js';

/**
 * How long acknowledgements wait for a read to carry them: about a round under load, short
 * enough that a worker going idle leaves nothing pending for long.
 */
const ACK_DELAY_MS = 5;

type Cursors = ReadonlyArray<{ partition: number; cursor: string }>;

/**
 * A type's mailboxes on a Redis Cluster, read by one worker. Every partition's mailbox is in a
 * slot of its own (`hearth:{voucher:p3}`), and Redis refuses a read over keys of two slots
 * (CROSSSLOT), even on one node: so no one read can cover the partitions a worker owns, as it
 * does on one Redis.
 *
 * A read asks every partition at once without blocking, one XREADGROUP each, in one write per
 * node (node-batch.ts): a round holds what every partition had, as on one Redis. It reads when a
 * mailbox's bell (mailbox-bells.ts) has rung of entries it has not read, when a read came back
 * full, at its first read, after a listener was away or a read failed, and at the end of each
 * block time (mailbox-unread.ts); otherwise it waits for a bell. A pending history (after a
 * failure, or a partition taken over) is read at once.
 *
 * A partition whose slot has moved (resharding, failover) is followed where MOVED or ASK points
 * (node-batch.ts); a read that fails (its node gone) fails the round, so the worker reads the
 * pending history of every partition again (what a failed read was served is in it).
 */
export class ClusterMailbox extends RedisMailboxBase {
  private readonly acks: DeferredAcks;
  private readonly bells: MailboxBells;
  private readonly unread = new UnreadMailboxes();
  /** Whether the worker waits for a bell (and no read will carry acknowledgements). */
  private waiting = false;

  constructor(
    d: RedisMailboxDeps,
    private readonly cluster: Cluster,
  ) {
    super(d);
    this.acks = new DeferredAcks(cluster, d.keys.group, ACK_DELAY_MS);
    this.bells = new MailboxBells(cluster, `${d.consumer}:${d.type}`, this.unread);
  }

  /**
   * The replies at once (one script call per reply stream), and the acknowledgements after them:
   * a round's, which follow its replies, with the next read (see deferred-acks.ts); a write-behind
   * flush's, which have no replies and are waited for by the worker before it reads again, at
   * once.
   */
  override async settleMany(
    batches: ReadonlyArray<{ partition: number; ids: readonly string[]; replies: readonly OutgoingReply[] }>,
  ): Promise<number> {
    const replies = batches.flatMap((b) => b.replies);
    const acks = batches.map((b) => ({ stream: this.partition(b.partition).stream, ids: b.ids }));
    if (replies.length === 0) {
      await this.acks.now(acks);
      return 0;
    }
    const streams = [...new Set(replies.map((r) => r.stream))];
    const refused = await replyPerStream(this.cluster, this.d.keys.group, streams, replies);
    const acked = this.acks.add(acks);
    // No read comes while the worker waits for a bell: they go now.
    if (this.waiting) this.acks.flush();
    await acked;
    return refused;
  }

  async open(): Promise<void> {
    // Bells are listened to at the first read, on the nodes the partitions are on then.
  }

  close(): void {
    this.acks.flush();
    this.bells.close();
  }

  interrupt(): void {
    this.bells.interrupt();
  }

  async read(cursors: Cursors, count: number, blockMs: number | undefined): Promise<Map<number, RawEntry[]>> {
    // A pending history is read in full; afterwards every mailbox is read once more.
    if (cursors.some((c) => c.cursor !== '>')) {
      this.unread.everything();
      return this.readNow(cursors, count);
    }
    const mailboxes = cursors.map((c) => this.partition(c.partition).stream);
    this.bells.follow(mailboxes);
    this.unread.keepOnly(mailboxes);
    const deadline = performance.now() + (blockMs ?? 0);
    for (;;) {
      // Bells heard while a read was out are counted before waiting, with nothing in between.
      if (this.unread.any(mailboxes)) {
        const now = await this.readAll(cursors, mailboxes, count);
        if (now.size > 0 || performance.now() >= deadline) return now;
        continue;
      }
      if (blockMs === undefined) return new Map();
      const left = deadline - performance.now();
      // The block time is up with no bell for us: every mailbox once more (a bell may be lost).
      if (left <= 0) {
        this.unread.everything();
        continue;
      }
      // No read follows until a bell rings: the acknowledgements go now, and any that come while
      // it waits (a round's settles still on their way) at once.
      this.acks.flush();
      this.waiting = true;
      const why = await this.bells.wait(left);
      this.waiting = false;
      if (why === 'interrupted') return new Map();
    }
  }

  /** Every partition, without blocking, noting what each read covered (mailbox-unread.ts). */
  private async readAll(
    cursors: Cursors,
    mailboxes: readonly string[],
    count: number,
  ): Promise<Map<number, RawEntry[]>> {
    const covers = this.unread.take(mailboxes);
    let got: Map<number, RawEntry[]>;
    try {
      got = await this.readNow(cursors, count);
    } catch (err) {
      this.unread.everything();
      throw err;
    }
    cursors.forEach((c, i) => {
      const entries = got.get(c.partition);
      this.unread.read(mailboxes[i]!, covers[i], entries?.[entries.length - 1]?.[0], (entries?.length ?? 0) >= count);
    });
    return got;
  }

  /**
   * Every partition at once, without blocking: an XREADGROUP each, led by the acknowledgements
   * the last rounds left (deferred-acks.ts), in one write per node.
   */
  private async readNow(cursors: Cursors, count: number): Promise<Map<number, RawEntry[]>> {
    const acks = this.acks.take();
    const reads = cursors.map((c) => {
      const stream = this.partition(c.partition).stream;
      return { key: stream, name: 'xreadgroup', args: this.readGroupArgs([stream], [c.cursor], count) };
    });
    const sent = sendPerNode(this.cluster, [...acks.commands, ...reads]);
    acks.settle(sent.slice(0, acks.commands.length));
    const answers = (await Promise.all(sent.slice(acks.commands.length))) as Array<Array<[string, RawEntry[]]> | null>;
    const out = new Map<number, RawEntry[]>();
    cursors.forEach((c, i) => {
      const entries = answers[i]?.[0]?.[1] ?? [];
      if (entries.length > 0) out.set(c.partition, entries);
    });
    return out;
  }
}
