import { compareStreamIds, isStreamId } from '../../actors/runtime/stream-id.js';

/**
 * Whether a worker's mailboxes on a Redis Cluster may hold entries it has not read, from their
 * bells (mailbox-bells.ts). A bell carries the id of the newest entry its writer added (or `1`
 * when the writer does not know it: an outbox tell). The worker reads when
 * a bell tells of an entry newer than any it has read in that mailbox, when a read came back full
 * (more may wait), at its first read, after a listener was away, and once per block time without
 * a bell (a bell may be lost); otherwise it waits.
 *
 * A read then takes every mailbox, not only the one that rang: a gateway's turn of entries goes to
 * every node at once, and a round should hold all of it, as on one Redis. The other nodes' bells
 * for that turn come after the read has taken their entries, and are passed over here: woken by
 * each, the worker read every partition 2.4 times a round at 64 echo askers on 3 masters, 16
 * commands each time, and most came back empty.
 */
export class UnreadMailboxes {
  /** Per mailbox, the newest id a read returned, or that a read sent after its bell covered. */
  private readonly seen = new Map<string, string>();
  /** Per mailbox, the newest id rung that is newer than what was seen. */
  private readonly rung = new Map<string, string>();
  /** Mailboxes rung without an id, or whose last read came back full. */
  private readonly unknown = new Set<string>();
  /** The mailboxes read now (keepOnly); a bell of another, still heard, wakes nothing. */
  private followed = new Set<string>();
  private all = true;

  /** A bell rang; whether it tells of entries not read yet (what should wake the worker). */
  ring(mailbox: string, message: string): boolean {
    if (!this.followed.has(mailbox)) return false;
    if (!isStreamId(message)) {
      this.unknown.add(mailbox);
      return true;
    }
    const seen = this.seen.get(mailbox);
    if (seen !== undefined && compareStreamIds(message, seen) <= 0) return false;
    const rung = this.rung.get(mailbox);
    if (rung === undefined || compareStreamIds(message, rung) > 0) this.rung.set(mailbox, message);
    return true;
  }

  /**
   * Every mailbox is read next (a listener back, a block time without a bell, a failed read), and
   * what was seen is forgotten until then: after a failover or a mailbox made anew, ids may start
   * again below it, and their bells would be passed over.
   */
  everything(): void {
    this.all = true;
    this.seen.clear();
  }

  /** Whether any of these mailboxes is due a read. */
  any(mailboxes: readonly string[]): boolean {
    return this.all || mailboxes.some((m) => this.unknown.has(m) || this.rung.has(m));
  }

  /**
   * Every mailbox is being read: each with the newest id rung before its read was sent, what that
   * read covers (its entries are in the read, or another consumer had them first).
   */
  take(mailboxes: readonly string[]): Array<string | undefined> {
    this.all = false;
    return mailboxes.map((mailbox) => {
      const covers = this.rung.get(mailbox);
      this.rung.delete(mailbox);
      this.unknown.delete(mailbox);
      return covers;
    });
  }

  /**
   * What a read of a mailbox found: the id of the newest entry it returned (none: empty), and
   * whether it returned as many as it asked for (then more may wait, with no bell to come).
   */
  read(mailbox: string, covers: string | undefined, newest: string | undefined, full: boolean): void {
    // Entries returned are the newest delivered, even below an older `seen` (ids that started
    // again after a failover): what this read found and covered replaces it.
    let seen = newest === undefined ? this.seen.get(mailbox) : newest;
    if (covers !== undefined && (seen === undefined || compareStreamIds(covers, seen) > 0)) seen = covers;
    if (seen !== undefined) this.seen.set(mailbox, seen);
    const rung = this.rung.get(mailbox);
    // A bell that came while the read was out, for entries the read returned.
    if (rung !== undefined && seen !== undefined && compareStreamIds(rung, seen) <= 0) this.rung.delete(mailbox);
    if (full) this.unknown.add(mailbox);
  }

  /** The mailboxes read from now on; the others are forgotten (a partition given up). */
  keepOnly(mailboxes: readonly string[]): void {
    if (mailboxes.length === this.followed.size && mailboxes.every((m) => this.followed.has(m))) return;
    const kept = new Set(mailboxes);
    for (const map of [this.seen, this.rung]) for (const m of map.keys()) if (!kept.has(m)) map.delete(m);
    for (const m of this.unknown) if (!kept.has(m)) this.unknown.delete(m);
    this.followed = kept;
  }
}
