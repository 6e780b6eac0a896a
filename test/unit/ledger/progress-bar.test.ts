import { describe, expect, it } from 'vitest';
import { progressBar } from '../../../src/ledger/progress-bar.js';

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (t: string) => written.push(t) };
}

describe('the progress bar of long work (ledger verify)', () => {
  it('redraws one bar in place on a terminal, and ends its line', () => {
    const out = sink(true);
    const bar = progressBar('ledger:verify', 1_000, out);
    bar.update(300);
    bar.update(1_000);
    bar.end();
    expect(out.written[0]).toBe('\rledger:verify: [#########---------------------]  30%  300/1,000 blocks');
    expect(out.written[1]).toMatch(/\[#{30}\] 100% {2}1,000\/1,000 blocks$/);
    expect(out.written.at(-1)).toBe('\n');
  });

  it('writes plain lines where no one watches a terminal (a log, a pipe)', () => {
    const out = sink(false);
    const bar = progressBar('ledger:verify', 1_000, out);
    bar.update(500);
    bar.end();
    expect(out.written).toEqual(['ledger:verify: 500 blocks checked\n']);
  });
});
