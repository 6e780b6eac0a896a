import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_RETENTION_MS, UssdSessionJanitor } from '../../src/gateways/ussd/session-janitor.js';
import { isolated, type Isolated } from '../support/isolated.js';

describe('USSD session snapshots', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('are deleted a day after their last activity, and only theirs', async () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const at = (ms: number) => new Date(now.getTime() - ms).toISOString();
    const rows = [
      { type: 'ussd', key: 'old', state: { lastActivityAt: at(USSD_RETENTION_MS + 1_000) } },
      { type: 'ussd', key: 'recent', state: { lastActivityAt: at(60_000) } },
      { type: 'voucher', key: 'v', state: { lastActivityAt: at(USSD_RETENTION_MS * 10) } },
    ];
    for (const r of rows) {
      await env.sql`
        INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
        VALUES (${r.type}, ${r.key}, 1, ${env.sql.json(r.state)}, '1-0', 1)`;
    }
    const janitor = new UssdSessionJanitor(env.sql, env.log, () => now);
    expect(await janitor.sweep()).toBe(1);
    const left = await env.sql<{ key: string }[]>`SELECT key FROM actor_snapshots ORDER BY key`;
    expect(left.map((r) => r.key)).toEqual(['recent', 'v']);
  });
});
