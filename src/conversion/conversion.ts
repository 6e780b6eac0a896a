import { z } from 'zod';
import { asset, micro, microOrZero, stepId } from '../common/money-fields.js';
import { tellEffect } from '../actors/tell-effect.js';
import { reject, type ActorDefinition, type Decision } from '../actors/runtime/types.js';
import { actorRef } from '../actors/runtime/actor-ref.js';
import { swapOutcome } from '../common/swap-outcome.js';
import { shown } from '../common/movement.js';

/**
 * A conversion through a pool, as a saga (docs/design/token-conversion.md): one actor per
 * conversion, keyed by its id, that holds the trader's input on their account, asks the pool to
 * swap, and then captures the hold (crediting the output) or releases it. It talks to the
 * account and the pool by tells through the outbox (tell-effect.ts): each is sent only once the
 * saga's new status is committed, and at least once. Every step carries an id of its own
 * (`<conversion>:hold`, `<conversion>:swap`) that the account and the pool apply once and answer
 * again when asked again, so a repeat anywhere changes nothing, and the saga moves only on the
 * answer its status waits for.
 *
 * - reserving → swapping → settling → completed
 * - swapping → compensating → failed (the pool refused: slippage, no liquidity)
 * - reserving → rejected (not enough available; nothing held)
 */
type ConversionStatus = 'reserving' | 'swapping' | 'settling' | 'completed' | 'compensating' | 'failed' | 'rejected';

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
  /** Why it did not complete (failed, rejected). */
  failure?: { code: 'SLIPPAGE' | 'INSUFFICIENT_BALANCE' | 'NO_LIQUIDITY'; message: string; details?: unknown };
}

const conversionMessages = z.discriminatedUnion('kind', [
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
  z.strictObject({ kind: z.literal('captured'), id: stepId }),
  z.strictObject({ kind: z.literal('released'), id: stepId }),
  /** From the saga sweep: it has waited too long, so it sends the step it waits on again. */
  z.strictObject({ kind: z.literal('resume') }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type ConversionMessage = z.infer<typeof conversionMessages>;

const holdId = (c: { id: string }): string => `${c.id}:hold`;
const swapId = (c: { id: string }): string => `${c.id}:swap`;

/** The tell that the saga's current status waits on an answer to (none once it has ended). */
function pendingStep(c: ConversionState) {
  const replyTo = { type: 'conversion', key: c.id };
  const account = { type: 'account', key: c.account };
  switch (c.status) {
    case 'reserving':
      return tellEffect(account, { kind: 'hold', id: holdId(c), asset: c.assetIn, amount: c.amountIn, replyTo });
    case 'swapping':
      return tellEffect(
        { type: 'pool', key: c.pool },
        {
          kind: 'swap',
          id: swapId(c),
          account: c.account,
          assetIn: c.assetIn,
          amountIn: c.amountIn,
          minOut: c.minOut,
          replyTo,
        },
      );
    case 'settling':
      return tellEffect(account, {
        kind: 'capture',
        id: holdId(c),
        credit: { asset: c.fill!.assetOut, amount: c.fill!.amountOut },
        replyTo,
      });
    case 'compensating':
      return tellEffect(account, { kind: 'release', id: holdId(c), replyTo });
    default:
      return undefined;
  }
}

/** Moves to `status` and sends the step it waits on. */
function moveTo(
  c: ConversionState,
  status: ConversionStatus,
  now: Date,
  extra: Partial<ConversionState> = {},
): Decision<ConversionState> {
  const next: ConversionState = { ...c, ...extra, status, updatedAt: now.toISOString() };
  const step = pendingStep(next);
  return { state: next, reply: next, ...(step ? { effects: [step] } : {}) };
}

function decideConversion(
  state: ConversionState | undefined,
  msg: ConversionMessage,
  ctx: { key: string; now: Date },
): Decision<ConversionState> {
  if (msg.kind === 'get') {
    return state ? { state, reply: state } : { state, rejection: reject('NOT_FOUND', `no conversion ${ctx.key}`) };
  }
  if (msg.kind === 'start') {
    if (state) {
      return state.fingerprint === msg.fingerprint
        ? { state, reply: state }
        : {
            state,
            rejection: reject('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different conversion'),
          };
    }
    const { kind: _k, ...fields } = msg;
    const at = ctx.now.toISOString();
    return moveTo({ id: ctx.key, ...fields, status: 'reserving', createdAt: at, updatedAt: at }, 'reserving', ctx.now);
  }
  // An answer from the account or the pool: it moves the saga only when its status waits for it.
  if (!state) return { state };
  const ignore: Decision<ConversionState> = { state };
  switch (msg.kind) {
    case 'resume': {
      // A hold, capture or release is applied once by the account, so sending it again is safe.
      // A swap is not sent again (queued behind a backlog, it could fill twice): the sweep looks
      // for its fill on the ledger instead (saga-sweep.ts).
      if (state.status === 'swapping') return ignore;
      const step = pendingStep(state);
      if (!step) return ignore;
      const next = { ...state, updatedAt: ctx.now.toISOString(), resumes: (state.resumes ?? 0) + 1 };
      return { state: next, effects: [step] };
    }
    case 'held':
      if (state.status === 'reserving') return moveTo(state, 'swapping', ctx.now);
      // Past its hold, the saga hears a repeat: the account answered it from memory (and the
      // release below is a no-op there), or, long after, placed it afresh (its memory of the step
      // gone, or its first answer a refusal): nothing would capture that hold, so it goes back.
      if (state.status === 'rejected' || state.status === 'completed' || state.status === 'failed') {
        return {
          state,
          effects: [tellEffect({ type: 'account', key: state.account }, { kind: 'release', id: holdId(state) })],
        };
      }
      return ignore;
    case 'hold-refused':
      if (state.status !== 'reserving') return ignore;
      return moveTo(state, 'rejected', ctx.now, {
        failure: {
          code: 'INSUFFICIENT_BALANCE',
          message: `${shown(state.amountIn)} ${state.assetIn} asked, ${shown(msg.available)} available`,
          details: { asset: state.assetIn, available: msg.available },
        },
      });
    case 'swapped': {
      if (state.status !== 'swapping') return ignore;
      const o = msg.outcome;
      if (o.filled)
        return moveTo(state, 'settling', ctx.now, { fill: { assetOut: o.assetOut, amountOut: o.amountOut } });
      return moveTo(state, 'compensating', ctx.now, {
        failure:
          o.reason === 'slippage'
            ? {
                code: 'SLIPPAGE',
                message: `the pool would pay ${shown(o.quote)}, less than the ${shown(state.minOut)} asked for`,
                details: { quote: o.quote, minOut: state.minOut },
              }
            : { code: 'NO_LIQUIDITY', message: 'the pool cannot fill this amount', details: { quote: o.quote } },
      });
    }
    case 'captured':
      return state.status === 'settling' ? moveTo(state, 'completed', ctx.now) : ignore;
    case 'released':
      return state.status === 'compensating' ? moveTo(state, 'failed', ctx.now) : ignore;
  }
}

export const conversionActor: ActorDefinition<ConversionState, ConversionMessage> = {
  type: 'conversion',
  messages: conversionMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideConversion,
  view: {
    table: 'conversion_views',
    columns: ['account', 'status', 'created_at', 'doc'],
    row: (c) => ({ account: c.account, status: c.status, created_at: c.createdAt, doc: c }),
  },
};

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
