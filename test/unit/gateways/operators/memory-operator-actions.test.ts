import { describe, expect, it } from 'vitest';
import { memoryOperatorActions } from '../../../../src/gateways/operators/operator-actions.js';

describe('memoryOperatorActions', () => {
  it('lists the newest first, at most `limit`, each with who did what to what', async () => {
    let t = Date.parse('2026-11-28T10:00:00Z');
    const actions = memoryOperatorActions(() => (t += 1_000));
    await actions.record('k1', 'revoke-key', 'key-a');
    await actions.record('k2', 'replay-dead-letter', 'voucher/1', { id: '1-0' });
    await actions.record('k1', 'revoke-key', 'key-b');
    const listed = await actions.list(2);
    expect(listed.map((a) => a.target)).toEqual(['key-b', 'voucher/1']);
    expect(listed[1]).toMatchObject({ keyId: 'k2', action: 'replay-dead-letter', detail: { id: '1-0' } });
    expect(Date.parse(listed[0]!.at)).toBeGreaterThan(Date.parse(listed[1]!.at));
  });
});
