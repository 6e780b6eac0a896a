import { reject, type ActorContext, type Decision } from '../runtime/types.js';
import { ledgerEntry } from '../ledger-effect.js';
import { tellEffect } from '../tell-effect.js';
import { swap } from './pool-math.js';
import { poolAccount } from '../../common/movement.js';
import type { SwapOutcome } from '../../common/swap-outcome.js';
import type { PoolMessage, PoolState } from './messages.js';

/** A swap's outcome, by its step id. */
const swapFact = (id: string): string => `swap:${id}`;
/** A deposit applied, by its id. */
const depositFact = (id: string): string => `deposit:${id}`;

/** The facts a message reads: its swap's outcome or its deposit, by id. */
export const factsNeeded = (msg: PoolMessage): string[] =>
  msg.kind === 'swap' ? [swapFact(msg.id)] : msg.kind === 'deposit' ? [depositFact(msg.id)] : [];

/** A pool's decisions (messages.ts says what it holds and hears). */
export function decide(state: PoolState | undefined, msg: PoolMessage, ctx: ActorContext): Decision<PoolState> {
  if (msg.kind === 'get') return { state, reply: state ?? null };
  if (msg.kind === 'deposit') return deposit(state, msg, ctx.fact(depositFact(msg.id)) !== undefined);
  if (!state) {
    // A saga's swap is answered (it compensates); a direct ask is refused.
    if (!msg.replyTo) return { state, rejection: reject('NOT_FOUND', 'this pool has not been seeded') };
    return { state, effects: [answer(msg.replyTo, msg.id, { filled: false, reason: 'no_liquidity', quote: '0' })] };
  }
  const known = ctx.fact(swapFact(msg.id)) as SwapOutcome | undefined;
  if (known) return { state, reply: known, ...(msg.replyTo ? { effects: [answer(msg.replyTo, msg.id, known)] } : {}) };
  const assetOut = state.assets.find((a) => a !== msg.assetIn);
  if (!state.assets.includes(msg.assetIn) || !assetOut) {
    return { state, rejection: reject('VALIDATION_FAILED', `this pool trades ${state.assets.join(' and ')}`) };
  }
  const r = { in: BigInt(state.reserves[msg.assetIn]!), out: BigInt(state.reserves[assetOut]!) };
  const s = swap(r, BigInt(msg.amountIn), BigInt(msg.minOut), state.feeBps);
  const outcome: SwapOutcome = s.ok
    ? { filled: true, assetIn: msg.assetIn, amountIn: msg.amountIn, assetOut, amountOut: String(s.amountOut) }
    : { filled: false, reason: s.reason, quote: String(s.quote) };
  const next: PoolState = s.ok
    ? { ...state, reserves: { [msg.assetIn]: String(s.reserves.in), [assetOut]: String(s.reserves.out) } }
    : state;
  // A fill that captures its hold is answered by the capture (the account tells the saga, with
  // the fill's output): a word from the pool beside it would be a round of the saga for nothing.
  const captures = outcome.filled && msg.capture && msg.replyTo;
  const effects = [
    ...(outcome.filled ? [swapEntry(ctx.key, msg.account, msg.id, outcome, ctx.now)] : []),
    ...(captures ? [capture(msg.account, msg.capture!, outcome, msg.replyTo!)] : []),
    ...(msg.replyTo && !captures ? [answer(msg.replyTo, msg.id, outcome)] : []),
  ];
  return { state: next, reply: outcome, effects, facts: [{ id: swapFact(msg.id), body: outcome }] };
}

/**
 * A fill's capture of the trader's hold (the swap's `capture`), crediting the output, told to the
 * account in the fill's commit; the account answers the saga. Told once, with the fill: a swap
 * asked again is answered to the saga (`swapped`), and the saga's sweep sends a capture itself if
 * it waits on one.
 */
function capture(
  account: string,
  hold: string,
  o: SwapOutcome & { filled: true },
  replyTo: { type: string; key: string },
) {
  return tellEffect(
    { type: 'account', key: account },
    { kind: 'capture', id: hold, credit: { asset: o.assetOut, amount: o.amountOut }, replyTo },
  );
}

/** The read model row: its reserves and fee. */
export const viewRow = (s: PoolState) => ({ doc: { assets: s.assets, reserves: s.reserves, feeBps: s.feeBps } });

/** The swap's movement: the trader's input into the pool's reserves, the output out of them. */
function swapEntry(pool: string, account: string, id: string, o: SwapOutcome & { filled: true }, now: Date) {
  return ledgerEntry('conversion.swapped', {
    // `ref` finds the fill of a saga's swap step (the sweep's question: saga-sweep.ts).
    ref: id,
    pool,
    step: id,
    fill: { assetIn: o.assetIn, amountIn: o.amountIn, assetOut: o.assetOut, amountOut: o.amountOut },
    movement: [
      { account, asset: o.assetIn, amount: `-${o.amountIn}` },
      { account: poolAccount(pool), asset: o.assetIn, amount: o.amountIn },
      { account: poolAccount(pool), asset: o.assetOut, amount: `-${o.amountOut}` },
      { account, asset: o.assetOut, amount: o.amountOut },
    ],
    at: now.toISOString(),
  });
}

function deposit(
  state: PoolState | undefined,
  msg: PoolMessage & { kind: 'deposit' },
  applied: boolean,
): Decision<PoolState> {
  if (applied) return { state, reply: state ?? null };
  const remembered = [{ id: depositFact(msg.id), body: { deposits: msg.deposits } }];
  const assets = Object.keys(msg.deposits).sort();
  if (!state) {
    // The route lets only a deposit of both assets seed a pool; anything else is refused here too.
    if (assets.length !== 2) {
      return { state, rejection: reject('VALIDATION_FAILED', 'a pool is seeded with two assets exactly') };
    }
    const next: PoolState = { assets: [assets[0]!, assets[1]!], reserves: { ...msg.deposits }, feeBps: msg.feeBps };
    return { state: next, reply: next, facts: remembered };
  }
  if (!assets.every((a) => state.assets.includes(a))) {
    return { state, rejection: reject('VALIDATION_FAILED', `this pool holds ${state.assets.join(' and ')}`) };
  }
  const reserves = { ...state.reserves };
  for (const [a, amount] of Object.entries(msg.deposits)) reserves[a] = String(BigInt(reserves[a]!) + BigInt(amount));
  const next = { ...state, reserves };
  return { state: next, reply: next, facts: remembered };
}

function answer(to: { type: string; key: string }, id: string, outcome: SwapOutcome) {
  return tellEffect(to, { kind: 'swapped', id, outcome });
}
