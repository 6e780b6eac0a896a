import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USSD_RETENTION_MS } from '../../../../src/actors/ussd/index.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { ussdClient } from '../../../support/ussd-client.js';

describe('USSD session snapshots', () => {
  let env: Isolated;
  let hearth: Hearth;
  let now = new Date();

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2', USSD_RATE_PER_MINUTE: '1000' }), env.log, {
      clock: () => now,
    });
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const sessions = async () =>
    (await env.sql<{ key: string }[]>`SELECT key FROM actor_snapshots WHERE type = 'ussd'`).map((r) => r.key);

  it('are retired by the runtime a day after their last activity, and nothing else is', async () => {
    const ussd = ussdClient(`http://127.0.0.1:${hearth.port}`);
    const id = `ATUid_retire_${Date.now()}`;
    expect(await ussd.session(id, '+260970000777').start()).toMatch(/^CON /);
    // Written behind, within flushMs.
    expect(await eventually(sessions, (keys) => keys.includes(id))).toContain(id);
    const others = await env.sql`SELECT type, key FROM actor_snapshots WHERE type <> 'ussd'`;

    now = new Date(Date.now() + USSD_RETENTION_MS - 60_000);
    expect(await hearth.runtime!.retireIdle()).toBe(0);
    now = new Date(Date.now() + USSD_RETENTION_MS + 60_000);
    expect(await hearth.runtime!.retireIdle()).toBeGreaterThanOrEqual(1);
    expect(await sessions()).toEqual([]);
    expect(await env.sql`SELECT type, key FROM actor_snapshots WHERE type <> 'ussd'`).toEqual(others);
  });
});
