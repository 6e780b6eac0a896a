import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSystemOutbox, type SystemOutboxRow } from '../../../src/store/outbox-writes.js';
import { migrate } from '../../../src/store/migrate.js';
import { isolated, type Isolated } from '../../support/isolated.js';

describe('the outbox writer for systems (sweeps, registrations)', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
    await migrate(env.sql, env.schema, env.log);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('writes each row once by its identity, in one transaction with the caller’s own writes', async () => {
    const rows: SystemOutboxRow[] = [
      { topic: 'tell', sender: 'saga-sweep', key: 'conversion:c1', msgId: 't1', seq: 0, payload: { kind: 'resume' } },
      { topic: 'ledger', sender: 'ussd-account', key: 'did:x', msgId: 'account-created', seq: 0, payload: { n: 1 } },
    ];
    expect(await env.sql.begin((tx) => writeSystemOutbox(tx, rows))).toBe(2);
    // Run again (a sweep that ran twice): nothing more.
    expect(await env.sql.begin((tx) => writeSystemOutbox(tx, rows))).toBe(0);
    // Rolled back with its transaction.
    await expect(
      env.sql.begin(async (tx) => {
        await writeSystemOutbox(tx, [{ ...rows[0]!, msgId: 't2' }]);
        throw new Error('the caller failed');
      }),
    ).rejects.toThrow('the caller failed');
    const stored = await env.sql<{ topic: string; actor_type: string; payload: unknown }[]>`
      SELECT topic, actor_type, payload FROM outbox ORDER BY id`;
    expect(stored).toEqual([{ topic: 'tell', actor_type: 'saga-sweep', payload: { kind: 'resume' } }]);
    // The ledger entry is written where it stays, for the writer to chain (migration 026).
    const entries = await env.sql<{ actor_type: string; payload: unknown }[]>`
      SELECT actor_type, payload FROM ledger_entries`;
    expect(entries).toEqual([{ actor_type: 'ussd-account', payload: { n: 1 } }]);
  });
});
