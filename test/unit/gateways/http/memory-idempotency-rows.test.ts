import { describe, expect, it } from 'vitest';
import { memoryIdempotencyRows } from '../../../../src/gateways/http/memory-idempotency-rows.js';
import { idempotencyRowsSuite } from '../../../support/idempotency-rows-suite.js';

idempotencyRowsSuite('in memory', () => memoryIdempotencyRows());

describe('memoryIdempotencyRows', () => {
  it('calls a claim stale two minutes after it was made, as the table does', async () => {
    let now = 0;
    const rows = memoryIdempotencyRows(() => now);
    await rows.claim({ owner: 'o', key: 'k', claim: 'c' }, 'h');
    now = 119_000;
    expect((await rows.find('o', 'k'))?.stale).toBe(false);
    now = 121_000;
    expect((await rows.find('o', 'k'))?.stale).toBe(true);
  });
});
