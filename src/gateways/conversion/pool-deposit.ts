import type { Asker } from '../../actors/runtime/asker.js';
import { actorRef } from '../../actors/runtime/actor-ref.js';
import type { PoolMessage } from '../../actors/pool/index.js';
import { isAppError, isStoreUnavailable } from '../../errors/index.js';
import type { Logger } from '../../log.js';

type Deposit = Extract<PoolMessage, { kind: 'deposit' }>;

/** The pool as the deposit route addresses it: to apply a deposit, never anything else. */
const poolDeposits = actorRef<Deposit, { deposit: unknown }>('pool');

/**
 * Has the pool apply a deposit the depositor's account has just committed, waiting up to
 * `waitMs`, so that a read of the pool after the route's answer shows it (read after write):
 * the account's own tell of it goes through the outbox, and `GET /v1/pools/:id` would otherwise
 * race it. This is the very message the account tells (actors/account/logic.ts), and the pool
 * applies a deposit id once (actors/pool/logic.ts), whichever of this ask and that tell comes first.
 * The pool commits before it answers, its read model in the same commit.
 *
 * Asked only after the account applied the deposit: the account has then already posted its tell
 * (a worker posts its tells as soon as it commits, before it replies), so in the mailbox the tell
 * is ahead of this ask, which then only waits for it to be applied. Only if that post failed (the
 * relay then posts it within seconds) can this ask come first, with the amounts of this request:
 * the very amounts the account moved, since it refuses a deposit id reused with other amounts.
 *
 * False when the pool did not answer in time, or could not be reached: the deposit is committed
 * on the account and its tell still reaches the pool, so the route answers 202, not a 5xx that a
 * client would retry (and whose Idempotency-Key record would not be kept).
 */
export async function applyDeposit(
  client: Asker,
  pool: string,
  deposit: Omit<Deposit, 'kind'>,
  waitMs: number,
  log: Logger,
): Promise<boolean> {
  if (waitMs <= 0) return false;
  try {
    await client.ask(poolDeposits, pool, { kind: 'deposit', ...deposit }, waitMs);
    return true;
  } catch (err) {
    // A refusal by the pool is a bug (the route checks the assets); it is not hidden as a 202.
    if (!(isAppError(err) && err.retryable) && !isStoreUnavailable(err)) throw err;
    log.warn(
      { pool, deposit: deposit.id, err: String(err) },
      'the pool did not apply a deposit in time; answering 202',
    );
    return false;
  }
}
