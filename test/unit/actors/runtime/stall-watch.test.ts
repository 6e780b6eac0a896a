import { describe, expect, it } from 'vitest';
import { StallWatch } from '../../../../src/actors/runtime/stall-watch.js';
import type { Logger } from '../../../../src/log.js';

/** A logger that keeps its warnings. */
function recording(): { log: Logger; lines: Array<{ stage?: string; msg: string }> } {
  const lines: Array<{ stage?: string; msg: string }> = [];
  const log = {
    warn: (o: { stage?: string }, msg: string) => lines.push({ stage: o.stage, msg }),
  } as unknown as Logger;
  return { log, lines };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('StallWatch', () => {
  it('says once that a stage has not ended, and when it ends', async () => {
    const { log, lines } = recording();
    const watch = new StallWatch(log, 60, { actor: 'account' });
    try {
      watch.enter('commit');
      await wait(20);
      expect(lines).toEqual([]);
      await wait(400); // checked every 250 ms at least
      expect(lines).toEqual([{ stage: 'commit', msg: 'stalled: a stage has not ended' }]);
      watch.enter('read');
      expect(lines[1]).toEqual({ stage: 'commit', msg: 'stall over' });
      await wait(20);
      expect(lines).toHaveLength(2);
    } finally {
      watch.close();
    }
  });

  it('says nothing while the loop rests', async () => {
    const { log, lines } = recording();
    const watch = new StallWatch(log, 30, {});
    try {
      watch.enter(undefined);
      await wait(400);
      expect(lines).toEqual([]);
    } finally {
      watch.close();
    }
  });
});
