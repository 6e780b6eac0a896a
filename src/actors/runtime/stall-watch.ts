import type { Logger } from '../../log.js';

/**
 * Says, once per stall, when a loop has sat in one stage longer than it ever should (every stage
 * of a worker's round is bounded: a blocking read by its block time, a statement by PostgreSQL's
 * answer): a worker whose round waits on a promise that never settles stops its partitions
 * without an error to log, and this is the line an operator finds instead of silence.
 */
export class StallWatch {
  private stage: string | undefined;
  private since = performance.now();
  private told = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly afterMs: number,
    private readonly what: Record<string, unknown>,
  ) {
    this.timer = setInterval(() => this.check(), Math.max(250, Math.floor(afterMs / 3)));
    this.timer.unref();
  }

  /** The loop now waits in `stage` (undefined: it rests, for as long as it likes). */
  enter(stage: string | undefined): void {
    if (this.told) {
      this.log.warn({ ...this.what, stage: this.stage, ms: Math.round(performance.now() - this.since) }, 'stall over');
    }
    this.stage = stage;
    this.since = performance.now();
    this.told = false;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const ms = performance.now() - this.since;
    if (this.stage === undefined || this.told || ms < this.afterMs) return;
    this.told = true;
    this.log.warn({ ...this.what, stage: this.stage, ms: Math.round(ms) }, 'stalled: a stage has not ended');
  }
}
