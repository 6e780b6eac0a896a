import type { Mailbox } from './ports.js';
import type { SettleBatches } from './round-commit.js';

/**
 * Acknowledgements and replies of committed rounds that Redis did not take (a connection lost to
 * a master that just died, a cluster still voting on its replacement). A replay would find those
 * entries applied and acknowledge them without a reply: their askers would wait out their
 * deadline and be told the outcome is unknown. So the worker sends them again, before it reads
 * anything more, until Redis takes them. Acknowledging twice changes nothing, and an asker drops
 * a second reply. Bounded: no round is read while a debt is unpaid, so it holds the rounds that
 * were settling when Redis went away, no more.
 */
export class SettleDebt {
  private readonly owed: SettleBatches[] = [];

  owe(batches: SettleBatches): void {
    this.owed.push(batches);
  }

  get size(): number {
    return this.owed.length;
  }

  /** Sends what is owed, oldest first; throws (keeping the rest) if Redis refuses again. */
  async pay(mailbox: Pick<Mailbox, 'settleMany'>): Promise<void> {
    while (this.owed.length > 0) {
      await mailbox.settleMany(this.owed[0]!);
      this.owed.shift();
    }
  }
}
