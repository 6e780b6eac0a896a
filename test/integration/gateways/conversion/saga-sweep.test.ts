import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actors as registered } from '../../../../src/actors/registry.js';
import type { ActorDefinition, OutboxEffect } from '../../../../src/actors/runtime/types.js';
import { accountActor, type AccountMessage, type AccountState } from '../../../../src/actors/account/index.js';
import type { ConversionState } from '../../../../src/actors/conversion/index.js';
import { poolActor, type PoolMessage, type PoolState } from '../../../../src/actors/pool/index.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { ledgerRecords } from '../../../support/ledger-records.js';

/**
 * Steps lost on the way, as a dead-lettered message would be: the account's first hold, and the
 * pool's first fill's tells (its answer to the saga and the capture it tells the account).
 */
let holdsDropped = 0;
let answersDropped = 0;

const lossyAccount: ActorDefinition<AccountState, AccountMessage> = {
  ...accountActor,
  decide: (state, msg, ctx) =>
    msg.kind === 'hold' && msg.id === 'cv_lost_hold:hold' && holdsDropped++ === 0
      ? { state }
      : accountActor.decide(state, msg, ctx),
};

const tellsOfFill = (e: OutboxEffect): boolean =>
  e.topic === 'tell' && ['conversion', 'account'].includes((e.payload as { type: string }).type);
const lossyPool: ActorDefinition<PoolState, PoolMessage> = {
  ...poolActor,
  decide: (state, msg, ctx) => {
    const d = poolActor.decide(state, msg, ctx);
    if (msg.kind !== 'swap' || msg.id !== 'cv_lost_answer:swap' || answersDropped++ > 0) return d;
    return { ...d, effects: (d.effects ?? []).filter((e) => !tellsOfFill(e)) };
  },
};

const actors = registered.map((a) =>
  a.type === 'account' ? lossyAccount : a.type === 'pool' ? lossyPool : a,
) as readonly ActorDefinition[];

/**
 * A saga whose step was lost waits; once it has not moved for SAGA_RESUME_AFTER_MS the sweep
 * sends a lost hold again, and for a lost answer to a swap looks for the fill on the ledger and
 * tells the saga of it (the pool fills once), and then, the capture lost with it, sends the capture.
 */
describe('the saga sweep', () => {
  let env: Isolated;
  let hearth: Hearth;
  const trader = 'did:key:z6MkSweepTrader';
  const ask = <T>(type: string, key: string, msg: { kind: string } & Record<string, unknown>) =>
    hearth.client!.ask<T>(type, key, msg);
  const saga = (id: string) => ask<ConversionState>('conversion', id, { kind: 'get' });
  const start = (id: string) =>
    ask('conversion', id, {
      kind: 'start',
      fingerprint: 'c'.repeat(64),
      account: trader,
      pool: 'CARBON-USDC',
      assetIn: 'CARBON',
      amountIn: '1000000',
      minOut: '1',
    });

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', SAGA_RESUME_AFTER_MS: '1000' }), env.log, {
      actors,
    });
    await ask('account', trader, { kind: 'credit', id: 'grant', asset: 'CARBON', amount: '5000000' });
    await ask('pool', 'CARBON-USDC', {
      kind: 'deposit',
      id: 'seed',
      deposits: { CARBON: '100000000', USDC: '200000000' },
      feeBps: 30,
    });
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('sends a lost hold again, and the saga completes', async () => {
    await start('cv_lost_hold');
    await new Promise((r) => setTimeout(r, 400));
    expect((await saga('cv_lost_hold')).status).toBe('reserving');
    const done = await eventually(
      () => saga('cv_lost_hold'),
      (c) => c.status === 'completed',
      10_000,
    );
    expect(done).toMatchObject({ status: 'completed', resumes: 1 });
    expect(holdsDropped).toBe(2);
  });

  it('tells a saga whose swap answer was lost of the fill on the ledger, without swapping again', async () => {
    await start('cv_lost_answer');
    await new Promise((r) => setTimeout(r, 400));
    // Its hold told the pool, whose answer is the hold's too: lost, the saga is still reserving.
    expect((await saga('cv_lost_answer')).status).toBe('reserving');
    const done = await eventually(
      () => saga('cv_lost_answer'),
      (c) => c.status === 'completed',
      10_000,
    );
    expect(done.status).toBe('completed');
    // The capture, lost with the answer, was sent by the sweep once the saga waited in settling.
    expect(done.resumes).toBe(1);
    expect(answersDropped).toBe(1);
    const fills = await ledgerRecords(env.sql, { type: 'conversion.swapped' });
    expect(fills.filter((f) => f.payload.ref === 'cv_lost_answer:swap')).toHaveLength(1);
    expect(done.fill?.amountOut).toBe(
      (fills.find((f) => f.payload.ref === 'cv_lost_answer:swap')!.payload.fill as { amountOut: string }).amountOut,
    );
    const account = await ask<{ balances: Record<string, { available: string; held: string }> }>('account', trader, {
      kind: 'get',
    });
    expect(account.balances.CARBON).toMatchObject({ available: '3000000', held: '0' });
  });

  it('leaves sagas that have ended alone', async () => {
    const before = (await saga('cv_lost_hold')).resumes;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await saga('cv_lost_hold')).resumes).toBe(before);
  });
});
