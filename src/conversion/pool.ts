import { z } from 'zod';
import { asset, micro, microOrZero } from '../common/money-fields.js';
import { reject, type ActorDefinition, type Decision } from '../actors/runtime/types.js';
import { ledgerEntry } from '../actors/ledger-effect.js';
import { tellEffect } from '../actors/tell-effect.js';
import { swap } from './pool-math.js';
import { poolAccount } from '../common/movement.js';
import { replyTo, type SwapOutcome } from '../common/swap-outcome.js';

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

/** A swap's outcome, by its step id. */
const swapFact = (id: string): string => `swap:${id}`;
/** A deposit applied, by its id. */
const depositFact = (id: string): string => `deposit:${id}`;

const poolMessages = z.discriminatedUnion('kind', [
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
  }),
  z.strictObject({ kind: z.literal('get') }),
]);

export type PoolMessage = z.infer<typeof poolMessages>;

export const poolActor: ActorDefinition<PoolState, PoolMessage> = {
  type: 'pool',
  messages: poolMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: {
    needs: (msg) => (msg.kind === 'swap' ? [swapFact(msg.id)] : msg.kind === 'deposit' ? [depositFact(msg.id)] : []),
  },
  decide(state, msg, ctx) {
    if (msg.kind === 'get') return { state, reply: state ?? null };
    if (msg.kind === 'deposit') return deposit(state, msg, ctx.fact(depositFact(msg.id)) !== undefined);
    if (!state) {
      // A saga's swap is answered (it compensates); a direct ask is refused.
      if (!msg.replyTo) return { state, rejection: reject('NOT_FOUND', 'this pool has not been seeded') };
      return { state, effects: [answer(msg.replyTo, msg.id, { filled: false, reason: 'no_liquidity', quote: '0' })] };
    }
    const known = ctx.fact(swapFact(msg.id)) as SwapOutcome | undefined;
    if (known)
      return { state, reply: known, ...(msg.replyTo ? { effects: [answer(msg.replyTo, msg.id, known)] } : {}) };
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
    const effects = [
      ...(outcome.filled ? [swapEntry(ctx.key, msg.account, msg.id, outcome, ctx.now)] : []),
      ...(msg.replyTo ? [answer(msg.replyTo, msg.id, outcome)] : []),
    ];
    return { state: next, reply: outcome, effects, facts: [{ id: swapFact(msg.id), body: outcome }] };
  },
  // Its reserves and fee.
  view: {
    table: 'pool_views',
    columns: ['doc'],
    row: (s) => ({ doc: { assets: s.assets, reserves: s.reserves, feeBps: s.feeBps } }),
  },
};

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
