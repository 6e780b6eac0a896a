import { describe, expect, it, vi } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { AppError } from '../../../../src/errors/index.js';
import { applyDeposit } from '../../../../src/gateways/conversion/pool-deposit.js';
import type { Logger } from '../../../../src/log.js';

const deposit = { id: 'dep_1', deposits: { CARBON: '1000000', USDC: '2000000' }, feeBps: 30 };
const log = { warn: vi.fn() } as unknown as Logger;
const clientAnswering = (ask: () => Promise<unknown>) => {
  const spy = vi.fn(ask);
  return { client: { ask: spy } as unknown as ActorClient, ask: spy };
};

describe('applyDeposit (the deposit route waits for the pool)', () => {
  it('asks the pool to apply the very deposit the account tells it, within the wait', async () => {
    const { client, ask } = clientAnswering(() => Promise.resolve({ reserves: {} }));
    expect(await applyDeposit(client, 'CARBON-USDC', deposit, 5_000, log)).toBe(true);
    expect(ask).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'pool' }),
      'CARBON-USDC',
      {
        kind: 'deposit',
        ...deposit,
      },
      5_000,
    );
  });

  it('is false (the route answers 202) when the pool does not answer in time or cannot be reached', async () => {
    for (const err of [
      new AppError('ASK_TIMEOUT', 'no answer', undefined, true),
      new AppError('OVERLOADED', 'busy', undefined, true),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ]) {
      const { client } = clientAnswering(() => Promise.reject(err));
      expect(await applyDeposit(client, 'CARBON-USDC', deposit, 5_000, log)).toBe(false);
    }
  });

  it('does not wait when CONVERSION_WAIT_MS is 0, and does not hide a refusal by the pool', async () => {
    const idle = clientAnswering(() => Promise.resolve(null));
    expect(await applyDeposit(idle.client, 'CARBON-USDC', deposit, 0, log)).toBe(false);
    expect(idle.ask).not.toHaveBeenCalled();
    const refused = clientAnswering(() => Promise.reject(new AppError('VALIDATION_FAILED', 'this pool holds X and Y')));
    await expect(applyDeposit(refused.client, 'CARBON-USDC', deposit, 5_000, log)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
