import { z } from 'zod';
import { asset, micro, microOrZero, stepId } from '../../common/money-fields.js';
import { actorRef } from '../runtime/actor-ref.js';
import { swapOutcome } from '../../common/swap-outcome.js';

/**
 * A conversion through a pool, as a saga (docs/design/token-conversion.md): one actor per
 * conversion, keyed by its id, that holds the trader's input on their account; the hold tells
 * the pool to swap, and the pool's fill tells the account to capture the hold (crediting the
 * output), each in its own commit, while the saga follows by their answers (and releases the hold
 * on a refusal). All of it travels by tells through the outbox (tell-effect.ts): each is sent only
 * once its sender's new state is committed, and at least once. Every step carries an id of its own
 * (`<conversion>:hold`, `<conversion>:swap`) that the account and the pool apply once and answer
 * again when asked again, so a repeat anywhere changes nothing, and the saga moves only on the
 * answers its status can take.
 *
 * - reserving → completed (the capture's answer; through swapping and settling when the sweep
 *   resumed it after a lost step, and always for a saga started before chaining)
 * - reserving or swapping → compensating → failed (the pool refused: slippage, no liquidity)
 * - reserving → rejected (not enough available; nothing held)
 */
export type ConversionStatus =
  'reserving' | 'swapping' | 'settling' | 'completed' | 'compensating' | 'failed' | 'rejected';

export interface ConversionState {
  id: string;
  /** The trader's account (their DID). */
  account: string;
  pool: string;
  assetIn: string;
  amountIn: string;
  minOut: string;
  /** The SHA-256 of the request that started it: the same Idempotency-Key with another body is refused. */
  fingerprint: string;
  status: ConversionStatus;
  createdAt: string;
  updatedAt: string;
  /** What the pool paid out (settling, completed). */
  fill?: { assetOut: string; amountOut: string };
  /** How often the saga sweep sent its pending step again (docs/design/token-conversion.md). */
  resumes?: number;
  /**
   * Its hold carries its swap and its swap its capture (logic.ts): set on every saga started
   * since 2026-11-28. A saga started before relays each step itself, as it began to: after an
   * upgrade, its hold went to the account without a swap, and its swap to the pool without a capture.
   */
  chained?: true;
  /** Why it did not complete (failed, rejected). */
  failure?: { code: 'SLIPPAGE' | 'INSUFFICIENT_BALANCE' | 'NO_LIQUIDITY'; message: string; details?: unknown };
}

export const conversionMessages = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('start'),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    account: z.string().min(1).max(512),
    pool: z.string().min(1).max(128),
    assetIn: asset,
    amountIn: micro,
    minOut: microOrZero,
  }),
  z.strictObject({ kind: z.literal('held'), id: stepId }),
  z.strictObject({ kind: z.literal('hold-refused'), id: stepId, available: z.string() }),
  z.strictObject({ kind: z.literal('swapped'), id: stepId, outcome: swapOutcome }),
  /** `credit`: what the capture credited (the fill's output), so a saga that missed the fill still knows it. */
  z.strictObject({
    kind: z.literal('captured'),
    id: stepId,
    credit: z.strictObject({ asset, amount: micro }).optional(),
  }),
  z.strictObject({ kind: z.literal('released'), id: stepId }),
  /** From the saga sweep: it has waited too long, so it sends the step it waits on again. */
  z.strictObject({ kind: z.literal('resume') }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type ConversionMessage = z.infer<typeof conversionMessages>;

/** How the gateway starts a saga (`start`: its state once committed) and reads one. */
export const conversionRef = actorRef<
  ConversionMessage,
  {
    start: ConversionState;
    get: ConversionState;
    held: unknown;
    'hold-refused': unknown;
    swapped: unknown;
    captured: unknown;
    released: unknown;
    resume: unknown;
  }
>('conversion');
