/**
 * A progress line for long work: on a terminal, one bar redrawn in place
 * (`[######--------------]  30%  3,000/10,000 blocks`); elsewhere (a log, a pipe), a plain line
 * each time, as before.
 */
export function progressBar(
  label: string,
  total: number,
  out: { isTTY?: boolean; write(text: string): unknown },
): { update(done: number): void; end(): void } {
  const width = 30;
  let drawn = false;
  return {
    update(done: number) {
      if (!out.isTTY || total <= 0) {
        out.write(`${label}: ${done.toLocaleString('en-US')} blocks checked\n`);
        return;
      }
      const share = Math.min(1, done / total);
      const filled = Math.round(share * width);
      out.write(
        `\r${label}: [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} blocks`,
      );
      drawn = true;
    },
    end() {
      if (drawn) out.write('\n');
    },
  };
}
