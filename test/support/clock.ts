/** hearth's clock for a test (`startHearth(config, log, { clock })`), which the test moves forward. */
export interface MovableClock {
  (): Date;
  /** Moves the clock `ms` forward, at once: a cache or a window lapses without a wait. */
  advance(ms: number): void;
}

/**
 * The real time plus however far the test has moved it. It keeps running, unlike a pinned clock,
 * so tokens a test mints at the real time are neither from the future nor expired to hearth.
 */
export function movableClock(): MovableClock {
  let offsetMs = 0;
  return Object.assign(() => new Date(Date.now() + offsetMs), {
    advance(ms: number) {
      offsetMs += ms;
    },
  });
}
