import { z } from 'zod';
import { asset, micro, stepId } from '../../common/money-fields.js';
import { actorRef } from '../runtime/actor-ref.js';

/**
 * An order settled outside hearth by a counterparty (docs/design/token-conversion.md, steps 2
 * and 6), one actor per order, keyed by its id:
 * - a **payout** (step 2): a supplier's stablecoin paid out in local currency by a payment
 *   processor. It holds the stablecoin on the supplier's account (reserving → pending), then the
 *   processor's signed callback settles it (the hold is captured and the stablecoin leaves
 *   hearth's custody: `burn:<asset>`) or fails it (the hold is released);
 * - an **exchange** order (step 6): an implementer's fiat converted by a regulated exchange
 *   operator. Pending until the operator confirms: then the stablecoin enters custody
 *   (`mint:<asset>`) and is credited to the implementer.
 * Each step to the account is a tell through the outbox with an id of its own (`<order>:hold`,
 * `<order>:credit`), applied once; a callback told again answers as the order stands.
 */
export type OrderStatus = 'reserving' | 'pending' | 'settled' | 'failed' | 'rejected';

export interface OrderState {
  id: string;
  kind: 'payout' | 'exchange';
  /** The party's account (its DID). */
  account: string;
  /** The payment processor or exchange operator (a counterparty id). */
  counterparty: string;
  asset: string;
  /** Micro-units of the stablecoin paid out (payout) or to be credited (exchange). */
  amount: string;
  fiat: { amount: number; currency: string; rate: number };
  fingerprint: string;
  status: OrderStatus;
  /** The counterparty's reference, from its callback. */
  reference?: string;
  failure?: { code: 'INSUFFICIENT_BALANCE' | 'COUNTERPARTY_FAILED'; message: string; details?: unknown };
  createdAt: string;
  updatedAt: string;
}

export const orderMessages = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('start'),
    order: z.enum(['payout', 'exchange']),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    account: z.string().min(1).max(512),
    counterparty: z.string().min(1).max(128),
    asset,
    amount: micro,
    fiat: z.strictObject({
      amount: z.number().positive(),
      currency: z.string().regex(/^[A-Z]{3}$/),
      rate: z.number().positive(),
    }),
  }),
  z.strictObject({
    kind: z.literal('callback'),
    counterparty: z.string().min(1).max(128),
    outcome: z.enum(['settled', 'failed']),
    reference: z.string().min(1).max(200),
    reason: z.string().max(500).optional(),
  }),
  z.strictObject({ kind: z.literal('held'), id: stepId }),
  z.strictObject({ kind: z.literal('hold-refused'), id: stepId, available: z.string() }),
  z.strictObject({ kind: z.literal('captured'), id: stepId }),
  z.strictObject({ kind: z.literal('released'), id: stepId }),
  /** From the saga sweep: a payout still reserving asks for its hold again. */
  z.strictObject({ kind: z.literal('resume') }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type OrderMessage = z.infer<typeof orderMessages>;

/** How the gateway asks an order: every message answers the order as it stands after it. */
export const orderRef = actorRef<OrderMessage, { [K in OrderMessage['kind']]: OrderState }>('order');
