import { tellEffect } from '../tell-effect.js';
import { reject, type ActorContext, type Decision } from '../runtime/types.js';
import type { Tallies } from '../runtime/ports.js';
import { ledgerEntry } from '../ledger-effect.js';
import { poolAccount, shown } from '../../common/movement.js';
import { decideItmo, itmoFactsNeeded } from './itmo.js';
import { pendingFact, pendingTallyAsset, stepFact, type PendingCredit } from './facts.js';
import type { AccountMessage, AccountState, AccountView } from './messages.js';

/**
 * An account's decisions (messages.ts says what it holds and hears): each step applied once by
 * its id, its answer told back to the saga that sent it.
 */
export function decide(
  state: AccountState | undefined,
  msg: AccountMessage,
  ctx: ActorContext,
): Decision<AccountState> {
  const decision = decideAccount(state, msg, ctx);
  return 'replyTo' in msg && msg.replyTo ? toldBack(decision, msg, msg.replyTo) : decision;
}

const empty: AccountState = { balances: {}, holds: {} };

/**
 * What an account shows: its snapshot's balances, with its pending tallies (what redemptions
 * added, by their vouchers' commits) when given. The read model row is written without them
 * (no message of the account follows a redemption): its readers add them ({@link withTallies}).
 */
export function view(s: AccountState, tallied: Tallies = {}): AccountView {
  const out: AccountView['balances'] = {};
  const row = (a: string) => (out[a] ??= { available: '0', held: '0', pending: '0' });
  for (const [a, v] of Object.entries(s.balances)) row(a).available = v;
  for (const h of Object.values(s.holds)) row(h.asset).held = String(BigInt(row(h.asset).held) + BigInt(h.amount));
  for (const [a, v] of Object.entries(s.pendingTotals ?? {})) row(a).pending = v;
  return withTallies({ balances: out }, tallied);
}

/**
 * A view with the account's pending tallies added: its snapshot's own pending total (credits told
 * to it before tallies, less every credit settled since, so it may be negative) plus what the
 * tallies hold is what waits on claims' decisions.
 */
export function withTallies(v: AccountView, tallied: Tallies): AccountView {
  const out: AccountView['balances'] = { ...v.balances };
  for (const [name, amount] of Object.entries(tallied)) {
    const asset = pendingTallyAsset(name);
    if (asset === undefined) continue;
    const row = out[asset] ?? { available: '0', held: '0', pending: '0' };
    out[asset] = { ...row, pending: String(BigInt(row.pending) + BigInt(amount)) };
  }
  return { balances: out };
}

const add = (m: Record<string, string> | undefined, a: string, by: bigint): Record<string, string> => ({
  ...m,
  [a]: String(BigInt(m?.[a] ?? '0') + by),
});

const withoutZero = (m: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => v !== '0'));

/** The facts a message reads: its step, its pending credit, or its ITMO claims and certificate. */
export function factsNeeded(msg: AccountMessage): string[] {
  switch (msg.kind) {
    case 'get':
      return [];
    case 'credit-pending':
    case 'settle-pending':
      return [pendingFact(msg.id)];
    case 'claim-itmo':
    case 'request-certificate':
    case 'decide-certificate':
      return itmoFactsNeeded(msg);
    default:
      return [stepFact(msg.id)];
  }
}

/** A deposit asked again is the same one: its pool, amounts and fee (a fee is kept since issue 38). */
const sameDeposit = (
  done: { pool?: string; amounts?: unknown; feeBps?: number },
  msg: { pool: string; amounts: Record<string, string>; feeBps: number },
) =>
  done.pool === msg.pool &&
  (done.feeBps === undefined || done.feeBps === msg.feeBps) &&
  JSON.stringify(sortedEntries(done.amounts)) === JSON.stringify(sortedEntries(msg.amounts));
const sortedEntries = (o: unknown) =>
  Object.entries((o ?? {}) as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));

/** The step applied, remembered so that the step asked again answers and changes nothing. */
const applied = (id: string, kind: string) => ({ id: stepFact(id), body: { kind } });

/**
 * An implementer's liquidity into a pool: the amounts leave its available balances, the movement
 * goes on the ledger in this commit, and the pool is told to add them to its reserves (it applies
 * a deposit id once). Refused, changing nothing, if any amount is more than is available.
 */
function deposit(
  state: AccountState | undefined,
  msg: AccountMessage & { kind: 'deposit' },
  ctx: ActorContext,
): Decision<AccountState> {
  const s = state ?? empty;
  let balances = s.balances;
  for (const [a, amount] of Object.entries(msg.amounts)) {
    const available = BigInt(balances[a] ?? '0');
    if (available < BigInt(amount)) {
      return {
        state,
        rejection: reject('INSUFFICIENT_BALANCE', `${shown(amount)} ${a} asked, ${shown(available)} available`, {
          asset: a,
          available: String(available),
        }),
      };
    }
    balances = { ...balances, [a]: String(available - BigInt(amount)) };
  }
  const next = { ...s, balances };
  const movement = Object.entries(msg.amounts).flatMap(([a, amount]) => [
    { account: ctx.key, asset: a, amount: `-${amount}` },
    { account: poolAccount(msg.pool), asset: a, amount },
  ]);
  return {
    state: next,
    reply: view(next, ctx.tallies()),
    // Its amounts are kept with it: the same id asked again for others is refused, not answered.
    facts: [
      { id: stepFact(msg.id), body: { kind: 'deposit', pool: msg.pool, amounts: msg.amounts, feeBps: msg.feeBps } },
    ],
    effects: [
      ledgerEntry('pool.deposited', { pool: msg.pool, step: msg.id, movement, at: ctx.now.toISOString() }),
      tellEffect(
        { type: 'pool', key: msg.pool },
        { kind: 'deposit', id: msg.id, deposits: msg.amounts, feeBps: msg.feeBps },
      ),
    ],
  };
}

/**
 * A step a saga sent by a tell hears no reply: its answer goes back to the saga by a tell, in the
 * same commit. A refused hold is answered too (with what is available), and changes nothing.
 */
function toldBack(
  d: Decision<AccountState>,
  msg: AccountMessage & { kind: 'hold' | 'release' | 'capture' },
  to: { type: string; key: string },
): Decision<AccountState> {
  if (d.rejection) {
    if (msg.kind !== 'hold' || d.rejection.code !== 'INSUFFICIENT_BALANCE') return d;
    const { available } = d.rejection.details as { available: string };
    // Remembered, so that the hold asked again is refused again, however the balance has moved
    // since: placed later, it would tell its swap (see swapFor) for a saga that has ended rejected.
    return {
      state: d.state,
      effects: [tellEffect(to, { kind: 'hold-refused', id: msg.id, available })],
      facts: [{ id: stepFact(msg.id), body: { kind: 'refused', available } }],
    };
  }
  // A hold placed with its swap is answered by the swap's outcome, which the pool tells the saga:
  // a `held` beside it would be a round of the saga for nothing. A hold asked again is answered.
  if (msg.kind === 'hold' && msg.swap && d.effects?.length) return d;
  const kind = msg.kind === 'hold' ? 'held' : msg.kind === 'capture' ? 'captured' : 'released';
  const credit = msg.kind === 'capture' && msg.credit ? { credit: msg.credit } : {};
  return { ...d, effects: [...(d.effects ?? []), tellEffect(to, { kind, id: msg.id, ...credit })] };
}

/**
 * The swap a placed hold is for (its `swap`), told to the pool with the hold's saga as its
 * `replyTo` and the hold to capture on a fill: the account, pool and account steps of a
 * conversion follow one another without a round of the saga between them.
 */
function swapFor(msg: AccountMessage & { kind: 'hold' }, account: string) {
  const swap = msg.swap!;
  return tellEffect(
    { type: 'pool', key: swap.pool },
    {
      kind: 'swap',
      id: swap.id,
      account,
      assetIn: msg.asset,
      amountIn: msg.amount,
      minOut: swap.minOut,
      ...(msg.replyTo ? { replyTo: msg.replyTo, capture: msg.id } : {}),
    },
  );
}

function decideAccount(
  state: AccountState | undefined,
  msg: AccountMessage,
  ctx: ActorContext,
): Decision<AccountState> {
  const s = state ?? empty;
  if (msg.kind === 'get') return { state, reply: view(s, ctx.tallies()) };
  if (msg.kind === 'credit-pending' || msg.kind === 'settle-pending') return decidePending(state, s, msg, ctx);
  if (msg.kind === 'claim-itmo' || msg.kind === 'request-certificate' || msg.kind === 'decide-certificate') {
    return decideItmo(s, state, msg, ctx);
  }
  // A step applied already (or a hold still in place) answers as it stands now.
  const done = ctx.fact(stepFact(msg.id)) as
    { kind: string; pool?: string; amounts?: unknown; feeBps?: number; available?: string } | undefined;
  if (done && msg.kind === 'deposit' && done.amounts !== undefined && !sameDeposit(done, msg)) {
    // The same id for other amounts or fee (a deposit's id comes from its Idempotency-Key).
    return { state, rejection: reject('IDEMPOTENCY_KEY_REUSED', 'this deposit id was used for another deposit') };
  }
  if (done?.kind === 'refused' && msg.kind === 'hold') {
    const available = done.available ?? '0';
    return {
      state,
      rejection: reject('INSUFFICIENT_BALANCE', `${msg.amount} ${msg.asset} asked, ${available} available`, {
        asset: msg.asset,
        available,
      }),
    };
  }
  if (done !== undefined || (msg.kind === 'hold' && s.holds[msg.id])) {
    return { state, reply: view(s, ctx.tallies()) };
  }
  switch (msg.kind) {
    case 'credit': {
      const next = { ...s, balances: add(s.balances, msg.asset, BigInt(msg.amount)) };
      return { state: next, reply: view(next, ctx.tallies()), facts: [applied(msg.id, 'credit')] };
    }
    case 'hold': {
      const available = BigInt(s.balances[msg.asset] ?? '0');
      if (available < BigInt(msg.amount)) {
        return {
          state,
          rejection: reject('INSUFFICIENT_BALANCE', `${msg.amount} ${msg.asset} asked, ${available} available`, {
            asset: msg.asset,
            available: String(available),
          }),
        };
      }
      const next = {
        ...s,
        balances: add(s.balances, msg.asset, -BigInt(msg.amount)),
        holds: { ...s.holds, [msg.id]: { asset: msg.asset, amount: msg.amount } },
      };
      return {
        state: next,
        reply: view(next, ctx.tallies()),
        ...(msg.swap ? { effects: [swapFor(msg, ctx.key)] } : {}),
      };
    }
    case 'deposit':
      return deposit(state, msg, ctx);
    case 'release':
    case 'capture': {
      const hold = s.holds[msg.id];
      if (!hold) return { state, rejection: reject('NOT_FOUND', `no hold ${msg.id} on this account`) };
      const { [msg.id]: _gone, ...holds } = s.holds;
      let balances = msg.kind === 'release' ? add(s.balances, hold.asset, BigInt(hold.amount)) : s.balances;
      if (msg.kind === 'capture' && msg.credit) balances = add(balances, msg.credit.asset, BigInt(msg.credit.amount));
      const next = { ...s, balances, holds };
      return { state: next, reply: view(next, ctx.tallies()), facts: [applied(msg.id, msg.kind)] };
    }
  }
}

/**
 * A redemption's CARBON, pending until its claim is decided. A redemption adds it to the
 * account's pending tally in its own commit (voucher/logic.ts), and its decision says so
 * (`tallied`); a credit told to the account (redemptions made before tallies) is a fact and is
 * added to the snapshot's pending total. A decision takes the amount off that total either way
 * (which may go below zero: the tally holds the rest) and keeps its outcome as the credit's fact,
 * so a decision told again, or a told credit that arrives after its decision, changes nothing.
 */
function decidePending(
  state: AccountState | undefined,
  s: AccountState,
  msg: AccountMessage & { kind: 'credit-pending' | 'settle-pending' },
  ctx: ActorContext,
): Decision<AccountState> {
  const known = ctx.fact(pendingFact(msg.id)) as PendingCredit | undefined;
  if (msg.kind === 'credit-pending') {
    if (known) return { state, reply: view(s, ctx.tallies()) };
    const next = { ...s, pendingTotals: add(s.pendingTotals, msg.asset, BigInt(msg.amount)) };
    const credit: PendingCredit = { asset: msg.asset, amount: msg.amount, status: 'pending' };
    return { state: next, reply: view(next, ctx.tallies()), facts: [{ id: pendingFact(msg.id), body: credit }] };
  }
  if (known && known.status !== 'pending') return { state, reply: view(s, ctx.tallies()) };
  // A told credit counted in the total only if it came first; a tallied one is in the tally, and
  // its amount comes off the total (which may go below zero). A total back at zero is dropped.
  const counted = known ? BigInt(known.amount) : msg.tallied ? BigInt(msg.amount) : 0n;
  const pendingTotals = counted > 0n ? withoutZero(add(s.pendingTotals, msg.asset, -counted)) : s.pendingTotals;
  const balances = msg.outcome === 'accepted' ? add(s.balances, msg.asset, BigInt(msg.amount)) : s.balances;
  const next: AccountState = { ...s, balances, ...(pendingTotals ? { pendingTotals } : {}) };
  const settled: PendingCredit = { asset: msg.asset, amount: msg.amount, status: msg.outcome };
  return { state: next, reply: view(next, ctx.tallies()), facts: [{ id: pendingFact(msg.id), body: settled }] };
}
