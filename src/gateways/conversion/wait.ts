import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads a saga's read model until `done` or `waitMs` passes (5 ms, doubling to 100 ms between
 * reads): the answer to a request that started it, when it ends soon, as it mostly does.
 */
export async function readUntil<T>(
  read: () => Promise<T | undefined>,
  done: (t: T) => boolean,
  waitMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + waitMs;
  let pause = 5;
  for (;;) {
    const t = await read();
    if ((t && done(t)) || Date.now() + pause > deadline) return t;
    await sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}
