import { z } from 'zod';
import { asset, micro, microOrZero, stepId } from '../../common/money-fields.js';
import { replyTo } from '../../common/swap-outcome.js';
import { actorRef } from '../runtime/actor-ref.js';
import { itmoMessages, type ItmoCertificate, type ItmoClaim } from './itmo.js';

/**
 * A party's account (docs/design/token-conversion.md): an available balance per asset and the
 * holds a conversion places on it, in micro-units kept as decimal strings (snapshots are JSON; a
 * bigint is not). Every change names its step id (a saga's `conversion id + step`): a step asked
 * for again after a crash answers as it did the first time and changes nothing, so a saga can
 * drive its steps forward without knowing which of them had landed.
 *
 * The snapshot is bounded (docs/architecture.md, "Actor state and its bounds"): what grows with the
 * account's history lives in facts beside it (account-facts.ts), looked up by id — the steps it
 * applied, each credit waiting on a claim's decision, its ITMO claims and certificates — so a
 * supplier with 50,000 redemptions waiting on a regulator pays for a redemption what a new one does.
 */
export interface AccountState {
  /** Available, per asset. */
  balances: Record<string, string>;
  /** Holds in place, by step id: a saga's hold until its capture or release (sagas in flight). */
  holds: Record<string, { asset: string; amount: string }>;
  /** Per asset, the total of credits waiting on a claim's decision (each one is a fact). */
  pendingTotals?: Record<string, string>;
}

export const accountMessages = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('credit'), id: stepId, asset, amount: micro }),
  z.strictObject({
    kind: z.literal('hold'),
    id: stepId,
    asset,
    amount: micro,
    replyTo: replyTo.optional(),
    /**
     * The swap the held amount is for: once the hold is placed, the account tells the pool in
     * the same commit (with the saga as its `replyTo`), so a conversion's swap does not wait for
     * the saga's round in between. Told once, with the hold; a hold asked again is only answered.
     */
    swap: z.strictObject({ pool: z.string().min(1).max(128), id: stepId, minOut: microOrZero }).optional(),
  }),
  z.strictObject({ kind: z.literal('release'), id: stepId, replyTo: replyTo.optional() }),
  z.strictObject({
    kind: z.literal('capture'),
    id: stepId,
    /** What the held amount bought, credited in the same step (a swap's output). */
    credit: z.strictObject({ asset, amount: micro }).optional(),
    replyTo: replyTo.optional(),
  }),
  /** A redemption's CARBON, not spendable until its claim is accepted. */
  z.strictObject({ kind: z.literal('credit-pending'), id: stepId, asset, amount: micro }),
  /**
   * The decision on a pending credit (same id): accepted makes it available, rejected drops it.
   * It carries the amount, so one that arrives before its credit (two senders' tells are not
   * ordered) still settles, and the late credit is then ignored.
   */
  z.strictObject({
    kind: z.literal('settle-pending'),
    id: stepId,
    asset,
    amount: micro,
    outcome: z.enum(['accepted', 'rejected']),
    /** Its credit is in the account's pending tally (a redemption since migration 027), never told. */
    tallied: z.literal(true).optional(),
  }),
  /** Moves available balances into a pool's reserves (its first deposit seeds it, with the fee). */
  z.strictObject({
    kind: z.literal('deposit'),
    id: stepId,
    pool: z.string().min(1).max(128),
    amounts: z.record(asset, micro),
    feeBps: z.number().int().min(0).max(1_000),
  }),
  ...itmoMessages,
  z.strictObject({ kind: z.literal('get') }),
]);

export type AccountMessage = z.infer<typeof accountMessages>;

/** What an account answers: per asset, what is available, held and pending. */
export interface AccountView {
  balances: Record<string, { available: string; held: string; pending: string }>;
}

/** How the gateway asks an account: a step answers the balances after it; an ITMO step, its claim or certificate. */
export const accountRef = actorRef<
  AccountMessage,
  { [K in AccountMessage['kind']]: AccountView } & {
    'claim-itmo': ItmoClaim;
    'request-certificate': ItmoCertificate;
    'decide-certificate': ItmoCertificate;
  }
>('account');
