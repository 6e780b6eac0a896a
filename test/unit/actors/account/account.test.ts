import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountActor, type AccountMessage, type AccountState } from '../../../../src/actors/account/index.js';
import { pendingCredit } from '../../../../src/actors/pending-credit.js';
import { decider } from '../../../support/decider.js';

/** An account driven through these messages; its state, how many were refused, and the driver. */
function run(messages: AccountMessage[], key = 'did:key:party') {
  const account = decider(accountActor, { key, now: () => new Date('2026-11-25T00:00:00Z') });
  let refused = 0;
  for (const m of messages) if (account.send(m).rejection) refused++;
  return { state: account.state, refused, account };
}

const total = (s: AccountState | undefined, asset: string) =>
  BigInt(s?.balances[asset] ?? '0') +
  Object.values(s?.holds ?? {})
    .filter((h) => h.asset === asset)
    .reduce((a, h) => a + BigInt(h.amount), 0n);

describe('an account', () => {
  it('holds what a conversion reserves, and settles it or gives it back', () => {
    const { account } = run([
      { kind: 'credit', id: 'c1', asset: 'CARBON', amount: '5000000' },
      { kind: 'hold', id: 'x1:reserve', asset: 'CARBON', amount: '3000000' },
      { kind: 'hold', id: 'x2:reserve', asset: 'CARBON', amount: '1000000' },
      { kind: 'capture', id: 'x1:reserve', credit: { asset: 'USDC', amount: '2900000' } },
      { kind: 'release', id: 'x2:reserve' },
    ]);
    expect(account.send({ kind: 'get' }).reply).toEqual({
      balances: {
        CARBON: { available: '2000000', held: '0', pending: '0' },
        USDC: { available: '2900000', held: '0', pending: '0' },
      },
    });
  });

  it('refuses a hold beyond what is available, saying how much is', () => {
    const { account } = run([{ kind: 'credit', id: 'c1', asset: 'CARBON', amount: '10' }]);
    const d = account.send({ kind: 'hold', id: 'h', asset: 'CARBON', amount: '11' });
    expect(d.rejection).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { available: '10' } });
  });

  it("tells a saga's swap with the hold it places, once, for an answer, and remembers a refused hold as refused", () => {
    const saga = { type: 'conversion' as const, key: 'cv1' };
    const { account } = run([{ kind: 'credit', id: 'c1', asset: 'CARBON', amount: '10' }]);
    const swap = { pool: 'CARBON-USDC', id: 'cv1:swap', minOut: '1' };
    const placed = account.send({ kind: 'hold', id: 'cv1:hold', asset: 'CARBON', amount: '4', replyTo: saga, swap });
    expect(placed.effects?.map((e) => e.payload)).toEqual([
      {
        type: 'pool',
        key: 'CARBON-USDC',
        message: {
          kind: 'swap',
          id: 'cv1:swap',
          account: 'did:key:party',
          assetIn: 'CARBON',
          amountIn: '4',
          minOut: '1',
          replyTo: saga,
          capture: 'cv1:hold',
        },
      },
    ]);
    // Asked again: answered `held` (no sooner: the swap's outcome answers the first), and the swap is not told twice.
    const again = account.send({ kind: 'hold', id: 'cv1:hold', asset: 'CARBON', amount: '4', replyTo: saga, swap });
    expect(again.effects?.map((e) => (e.payload as { type: string }).type)).toEqual(['conversion']);

    const big = { kind: 'hold', id: 'cv2:hold', asset: 'CARBON', amount: '20', replyTo: saga, swap } as const;
    expect(account.send(big).effects?.map((e) => e.payload)).toEqual([
      { type: 'conversion', key: 'cv1', message: { kind: 'hold-refused', id: 'cv2:hold', available: '6' } },
    ]);
    // The balance grows past it, and the same hold asked again is still refused: placed now, it
    // would swap for a saga that has ended rejected.
    account.send({ kind: 'credit', id: 'c2', asset: 'CARBON', amount: '100' });
    const late = account.send(big);
    expect(late.effects?.map((e) => e.payload)).toEqual([
      { type: 'conversion', key: 'cv1', message: { kind: 'hold-refused', id: 'cv2:hold', available: '6' } },
    ]);
    expect(account.state?.holds).toEqual({ 'cv1:hold': { asset: 'CARBON', amount: '4' } });
  });

  it('applies each step once, however often it is asked, and never goes below zero', () => {
    const step = fc.record({
      kind: fc.constantFrom('credit', 'hold', 'release', 'capture'),
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      amount: fc.bigInt({ min: 1n, max: 1_000n }),
      times: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const once: AccountMessage[] = [];
        const repeated: AccountMessage[] = [];
        for (const s of steps) {
          const m: AccountMessage =
            s.kind === 'credit' || s.kind === 'hold'
              ? { kind: s.kind, id: s.id, asset: 'CARBON', amount: String(s.amount) }
              : { kind: s.kind, id: s.id };
          once.push(m);
          for (let i = 0; i < s.times; i++) repeated.push(m);
        }
        const a = run(once).state;
        const b = run(repeated).state;
        // Repeats change nothing; nothing is ever negative; holds and balances add up to the
        // credits less what was captured.
        if (JSON.stringify(a) !== JSON.stringify(b)) return false;
        if (Object.values(a?.balances ?? {}).some((v) => BigInt(v) < 0n)) return false;
        let credited = 0n;
        let captured = 0n;
        const seen = new Set<string>();
        const held = new Map<string, bigint>();
        let available = 0n;
        for (const m of once) {
          if (m.kind === 'get') continue;
          if (seen.has(m.id) || (m.kind === 'hold' && held.has(m.id))) continue;
          if (m.kind === 'credit') {
            credited += BigInt(m.amount);
            available += BigInt(m.amount);
            seen.add(m.id);
          } else if (m.kind === 'hold') {
            if (available >= BigInt(m.amount)) {
              held.set(m.id, BigInt(m.amount));
              available -= BigInt(m.amount);
            }
          } else if (held.has(m.id)) {
            if (m.kind === 'capture') captured += held.get(m.id)!;
            else available += held.get(m.id)!;
            held.delete(m.id);
            seen.add(m.id);
          }
        }
        return total(a, 'CARBON') === credited - captured && BigInt(a?.balances.CARBON ?? '0') === available;
      }),
    );
  });

  it('keeps a redemption pending until its claim is decided, in either order of arrival, once', () => {
    const credit: AccountMessage = { kind: 'credit-pending', id: 'r1:pending', asset: 'CARBON', amount: '4000000' };
    const accept: AccountMessage = {
      kind: 'settle-pending',
      id: 'r1:pending',
      asset: 'CARBON',
      amount: '4000000',
      outcome: 'accepted',
    };
    const reject: AccountMessage = { ...accept, id: 'r2:pending', outcome: 'rejected' };
    const rejected: AccountMessage = { ...credit, id: 'r2:pending' };
    const available = { CARBON: { available: '4000000', held: '0', pending: '0' } };
    const { account: pendingOnly } = run([credit]);
    expect(pendingOnly.send({ kind: 'get' }).reply).toEqual({
      balances: { CARBON: { available: '0', held: '0', pending: '4000000' } },
    });
    // A pending credit is not available to hold.
    expect(pendingOnly.send({ kind: 'hold', id: 'h', asset: 'CARBON', amount: '1' }).rejection?.code).toBe(
      'INSUFFICIENT_BALANCE',
    );
    for (const order of [
      [credit, accept, credit, accept, rejected, reject],
      [accept, credit, reject, rejected, accept, rejected],
    ]) {
      const { account } = run(order);
      expect(account.send({ kind: 'get' }).reply).toEqual({ balances: available });
      // Nothing pending any more: no total is kept for it.
      expect(account.state?.pendingTotals ?? {}).toEqual({});
    }
  });

  it('settles a credit its redemption tallied (no message, no fact), once, the tally showing as pending', () => {
    const { account } = run([{ kind: 'credit', id: 'c1', asset: 'CARBON', amount: '1000000' }]);
    // What two redemptions' commits on their vouchers leave on the account: its tally, nothing else.
    for (const micro of ['4000000', '2500000']) {
      const tally = pendingCredit('did:key:party', 'CARBON', micro);
      account.tallies[tally.name] = String(BigInt(account.tallies[tally.name] ?? '0') + BigInt(tally.by));
    }
    expect([...account.facts.keys()].filter((id) => id.startsWith('pending:'))).toEqual([]);
    const shown = (available: string, pending: string) => ({ balances: { CARBON: { available, held: '0', pending } } });
    expect(account.send({ kind: 'get' }).reply).toEqual(shown('1000000', '6500000'));
    // Pending CARBON is not available to hold.
    expect(account.send({ kind: 'hold', id: 'h', asset: 'CARBON', amount: '1000001' }).rejection?.code).toBe(
      'INSUFFICIENT_BALANCE',
    );
    const settle = (id: string, amount: string, outcome: 'accepted' | 'rejected'): AccountMessage => ({
      kind: 'settle-pending',
      id,
      asset: 'CARBON',
      amount,
      outcome,
      tallied: true,
    });
    expect(account.send(settle('r1:pending', '4000000', 'accepted')).reply).toEqual(shown('5000000', '2500000'));
    // Decided again, or its credit told late (as before tallies): nothing changes.
    expect(account.send(settle('r1:pending', '4000000', 'accepted')).reply).toEqual(shown('5000000', '2500000'));
    const late: AccountMessage = { kind: 'credit-pending', id: 'r1:pending', asset: 'CARBON', amount: '4000000' };
    expect(account.send(late).reply).toEqual(shown('5000000', '2500000'));
    expect(account.send(settle('r2:pending', '2500000', 'rejected')).reply).toEqual(shown('5000000', '0'));
    // The snapshot's own total is what was settled off the tallies: below zero, bounded by assets.
    expect(account.state?.pendingTotals).toEqual({ CARBON: '-6500000' });
    expect(account.facts.get('pending:r2:pending')).toMatchObject({ status: 'rejected' });
  });

  it('moves a deposit into the pool with its ledger movement and a tell, or refuses it whole', () => {
    const deposit: AccountMessage = {
      kind: 'deposit',
      id: 'dep1',
      pool: 'CARBON-USDC',
      amounts: { CARBON: '3000000', USDC: '6000000' },
      feeBps: 30,
    };
    const { account } = run(
      [
        { kind: 'credit', id: 'c1', asset: 'CARBON', amount: '5000000' },
        { kind: 'credit', id: 'c2', asset: 'USDC', amount: '6000000' },
      ],
      'did:key:impl',
    );
    const d = account.send(deposit);
    expect(d.state?.balances).toEqual({ CARBON: '2000000', USDC: '0' });
    const [entry, tell] = d.effects ?? [];
    expect(entry?.payload).toMatchObject({
      type: 'pool.deposited',
      movement: [
        { account: 'did:key:impl', asset: 'CARBON', amount: '-3000000' },
        { account: 'pool:CARBON-USDC', asset: 'CARBON', amount: '3000000' },
        { account: 'did:key:impl', asset: 'USDC', amount: '-6000000' },
        { account: 'pool:CARBON-USDC', asset: 'USDC', amount: '6000000' },
      ],
    });
    expect(tell?.payload).toMatchObject({ type: 'pool', key: 'CARBON-USDC', message: { kind: 'deposit', id: 'dep1' } });
    // Told again, it changes nothing and tells no one.
    const again = account.send(deposit);
    expect(again.effects ?? []).toEqual([]);
    expect(account.state?.balances).toEqual({ CARBON: '2000000', USDC: '0' });
    // The same id for other amounts is refused, changing nothing.
    const reused = account.send({ ...deposit, amounts: { CARBON: '1', USDC: '6000000' } });
    expect(reused.rejection?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(account.send({ ...deposit, feeBps: 100 }).rejection?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(account.state?.balances).toEqual({ CARBON: '2000000', USDC: '0' });
    const tooMuch = { ...deposit, id: 'dep2', amounts: { CARBON: '1000000', USDC: '1' } };
    expect(account.send(tooMuch).rejection?.details).toEqual({ asset: 'USDC', available: '0' });
  });
});
