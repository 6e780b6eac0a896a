import type { Logger } from '../../log.js';
import type { Owned } from './round-commit.js';

/**
 * A type worker's periodic chores on the mailboxes it owns, run between rounds: trimming what
 * every reader is done with, and taking back entries stranded with an earlier owner.
 */
export class MailboxUpkeep {
  private lastTrim = 0;
  private lastSweep = Date.now();

  constructor(
    private readonly o: { trimEveryMs: number; leaseTtlMs: number },
    private readonly log: Logger,
  ) {}

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
