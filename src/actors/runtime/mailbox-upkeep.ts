import type { Logger } from '../../log.js';
import type { Owned } from './round-commit.js';

/**
 * A type worker's chores on the mailboxes it owns, run between rounds: taking over a partition
 * it has just been given, and periodically trimming what every reader is done with and taking
 * back entries stranded with an earlier owner.
 */
export class MailboxUpkeep {
  private lastTrim = 0;
  private lastSweep = Date.now();

  constructor(
    private readonly o: { trimEveryMs: number; leaseTtlMs: number; maxDeliveries: number },
    private readonly log: Logger,
  ) {}

  /**
   * Takes over a partition: its group, every entry earlier owners left pending (counted in its
   * takeover counts, poison past MAX_DELIVERIES takeovers), and their stranded marks.
   */
  async prepare(o: Owned): Promise<void> {
    await o.ops.ensureGroup();
    const claimed = await o.ops.claimAll();
    const counts = await o.ops.countClaims(claimed);
    o.claimed = new Set(claimed);
    o.poisonIds = new Set(claimed.filter((id) => (counts.get(id) ?? 0) > this.o.maxDeliveries));
    // Entries an earlier owner took back from a paused one and did not get to apply.
    const marked = await o.ops.strandedAmong(claimed);
    o.stranded = new Set(marked);
    o.strandedMarks = new Set(marked);
    await o.ops.dropIdleConsumers();
    if (claimed.length > 0) {
      this.log.info({ partition: o.partition, claimed: claimed.length }, 'claimed pending entries of earlier owners');
    }
    o.prepared = true;
  }

  async run(owned: Iterable<Owned>): Promise<void> {
    const parts = [...owned];
    await this.maybeTrim(parts);
    await this.maybeSweep(parts);
  }

  private async maybeTrim(owned: Owned[]): Promise<void> {
    const now = Date.now();
    if (now - this.lastTrim < this.o.trimEveryMs) return;
    this.lastTrim = now;
    await Promise.all(owned.filter((o) => o.prepared).map((o) => o.ops.trim()));
  }

  /**
   * Takes back entries stranded with another consumer after this worker took the partition: an
   * owner paused past its lease can still have a read reach Redis after the hand-over's claim.
   * Its commit is fenced, so without this nobody would apply them until the next hand-over.
   * Checked once a lease lifetime, for entries idle that long (cheap: one XPENDING summary per
   * partition, more only when another consumer holds something).
   */
  private async maybeSweep(owned: Owned[]): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < this.o.leaseTtlMs) return;
    this.lastSweep = now;
    for (const o of owned) {
      // As for reads: a lease that may have lapsed belongs to someone else's entries now.
      if (!o.prepared || o.lost || o.validUntil - performance.now() <= 5) continue;
      const taken = await o.ops.claimStranded(this.o.leaseTtlMs);
      if (taken.length === 0) continue;
      // Read this consumer's pending history again: the taken entries are in it now.
      for (const id of taken) {
        o.stranded.add(id);
        o.strandedMarks.add(id);
      }
      o.cursor = '0';
      this.log.warn(
        { partition: o.partition, claimed: taken.length },
        'took back entries stranded with an earlier owner',
      );
    }
  }
}
