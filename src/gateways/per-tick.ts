/**
 * Gathers the calls made in one turn of the event loop and carries them out as one: under load
 * many USSD hops reach the same step in the same turn (their requests, or their actor replies,
 * arrive together), and one Redis script over all of them costs the gateway and Redis a fraction
 * of one command each (each ioredis command was ~8% of the gateway's CPU per hop here).
 *
 * `run` gets the inputs in call order and must answer one output per input, in the same order.
 * When it fails, every call of the batch fails with its error.
 */
export function perTick<I, O>(run: (inputs: I[]) => Promise<O[]>, maxBatch = 1_000): (input: I) => Promise<O> {
  let pending: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];

  const flush = (): void => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const fail = (err: unknown): void => {
      for (const b of batch) b.reject(err);
    };
    // Through a promise, so even a `run` that throws at once fails its batch (not the process).
    Promise.resolve()
      .then(() => run(batch.map((b) => b.input)))
      .then((outputs) => {
        if (!Array.isArray(outputs) || outputs.length !== batch.length) {
          const got = Array.isArray(outputs) ? String(outputs.length) : 'no list of';
          return fail(new Error(`a batch of ${batch.length} got ${got} answers`));
        }
        batch.forEach((b, i) => b.resolve(outputs[i] as O));
      })
      .catch(fail);
  };

  return (input) =>
    new Promise<O>((resolve, reject) => {
      // setImmediate, not a microtask: the requests read in one poll of the loop each run in
      // their own callback, with microtasks drained in between; the check phase sees them all.
      if (pending.length === 0) setImmediate(flush);
      pending.push({ input, resolve, reject });
      if (pending.length >= maxBatch) flush();
    });
}
