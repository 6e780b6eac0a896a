import { z } from 'zod';
import { asset, micro, microOrZero, stepId } from '../../common/money-fields.js';
import { replyTo } from '../../common/swap-outcome.js';

/**
 * A liquidity pool of two assets (docs/design/token-conversion.md), one actor, so that its swaps
 * are serial and its product exact. Reserves are micro-units as decimal strings (snapshots are
 * JSON). Every swap names its step id (a saga's `conversion id + swap`) and its outcome is
 * remembered, fill or refusal, as a fact beside the snapshot (one per swap, looked up by id,
 * never in the snapshot): a swap asked again after a crash, however long after, answers what it
 * answered first, and the saga settles or compensates the same way whichever time it hears.
 * Deposits are remembered the same way.
 */
export interface PoolState {
  assets: [string, string];
  reserves: Record<string, string>;
  feeBps: number;
}

export const poolMessages = z.discriminatedUnion('kind', [
  /**
   * Liquidity from an implementer's account (its ledger movement was written there): the first
   * deposit seeds the pool with its two assets and the fee; a later one adds to the reserves (the
   * fee stays). Applied once per id.
   */
  z.strictObject({
    kind: z.literal('deposit'),
    id: z.string().min(1).max(200),
    deposits: z.record(asset, micro),
    feeBps: z.number().int().min(0).max(1_000),
  }),
  z.strictObject({
    kind: z.literal('swap'),
    id: z.string().min(1).max(200),
    assetIn: asset,
    amountIn: micro,
    /** The least the trader accepts; a worse fill is refused. */
    minOut: microOrZero,
    /** The trader's account: the other side of the swap's movement on the ledger. */
    account: z.string().min(1).max(512),
    /** A saga to tell the outcome to (it asked by a tell, so it hears no reply). */
    replyTo: replyTo.optional(),
    /**
     * The trader's hold that a fill pays for: the pool tells the account to capture it, crediting
     * the output, in the fill's own commit (the saga hears of it from the account), so a
     * conversion's capture does not wait for the saga's round in between.
     */
    capture: stepId.optional(),
  }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type PoolMessage = z.infer<typeof poolMessages>;
