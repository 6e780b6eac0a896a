import { tellEffect } from '../tell-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { shown } from '../../common/movement.js';
import type { ConversionMessage, ConversionState, ConversionStatus } from './messages.js';

const holdId = (c: { id: string }): string => `${c.id}:hold`;
const swapId = (c: { id: string }): string => `${c.id}:swap`;

/**
 * The tell that the saga's current status waits on an answer to (none once it has ended). A
 * chained saga's hold carries the swap it is for, and the swap the hold it pays for: the account
 * tells the pool, and the pool's fill tells the account to capture, in their own commits. So a
 * completed conversion is five actor steps in a row (start, hold, swap, capture, captured), not
 * seven: the account does not answer a hold placed with its swap (the swap's outcome does), and
 * the pool does not answer a fill that captures (the capture does, with the fill's output).
 */
function pendingStep(c: ConversionState) {
  const replyTo = { type: 'conversion', key: c.id };
  const account = { type: 'account', key: c.account };
  switch (c.status) {
    case 'reserving':
      return tellEffect(account, {
        kind: 'hold',
        id: holdId(c),
        asset: c.assetIn,
        amount: c.amountIn,
        replyTo,
        ...(c.chained ? { swap: { pool: c.pool, id: swapId(c), minOut: c.minOut } } : {}),
      });
    case 'swapping':
      // A chained saga's swap went from the account; a swap is never sent again (see `resume`).
      return c.chained ? undefined : swapStep(c, replyTo);
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

/** The swap a saga started before chaining sends itself, once its hold is placed. */
function swapStep(c: ConversionState, replyTo: { type: string; key: string }) {
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

/**
 * Moves a chained saga to `status` without sending anything (the step it waits on was told by the
 * account or the pool); a saga started before chaining sends it itself ({@link moveTo}).
 */
function advance(
  c: ConversionState,
  status: ConversionStatus,
  now: Date,
  extra: Partial<ConversionState> = {},
): Decision<ConversionState> {
  if (!c.chained) return moveTo(c, status, now, extra);
  const next: ConversionState = { ...c, ...extra, status, updatedAt: now.toISOString() };
  return { state: next, reply: next };
}

/** Statuses before the fill is known: the hold or the swap still under way. */
const beforeFill = (c: ConversionState): boolean => c.status === 'reserving' || c.status === 'swapping';

export function decideConversion(
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
    return moveTo(
      { id: ctx.key, ...fields, status: 'reserving', createdAt: at, updatedAt: at, chained: true },
      'reserving',
      ctx.now,
    );
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
      // From a chained saga's account, only for a hold asked again (by the sweep) that was in
      // place already: its swap was told with it, so the saga waits for the swap's outcome.
      if (state.status === 'reserving') return advance(state, 'swapping', ctx.now);
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
      // In `reserving` too: the answer to the hold may come after the pool's (two tells, two mailboxes).
      if (!beforeFill(state)) return ignore;
      const o = msg.outcome;
      // A chained saga's pool told the account to capture; it waits for the account's answer.
      if (o.filled)
        return advance(state, 'settling', ctx.now, { fill: { assetOut: o.assetOut, amountOut: o.amountOut } });
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
      if (state.status === 'settling') return moveTo(state, 'completed', ctx.now);
      // A chained saga's fill is answered by its capture: the capture's credit is the fill's output.
      if (beforeFill(state) && msg.credit)
        return moveTo(state, 'completed', ctx.now, {
          fill: { assetOut: msg.credit.asset, amountOut: msg.credit.amount },
        });
      return ignore;
    case 'released':
      return state.status === 'compensating' ? moveTo(state, 'failed', ctx.now) : ignore;
  }
}

/** Statuses of a saga that still waits on a step: the ones the saga sweep looks at. */
const RUNNING: ReadonlySet<ConversionStatus> = new Set(['reserving', 'swapping', 'settling', 'compensating']);

/**
 * The read model row: the saga's account, status and start, for lists; whether it still runs,
 * for the sweep's index (migration 029: set at the start, cleared at the end, so the steps
 * between update the row in place); the whole state.
 */
export const viewRow = (c: ConversionState) => ({
  account: c.account,
  status: c.status,
  created_at: c.createdAt,
  running: RUNNING.has(c.status),
  doc: c,
});
