/**
 * The promise's outcome, or the error `late` makes once `ms` have passed without one. The promise
 * goes on (nothing here can stop it); a rejection it meets later is handled by the race.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
