import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxRelay } from '../../../../src/store/redis/outbox-relay.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { createPgTellOutbox } from '../../../../src/store/tell-outbox.js';
import { migrate } from '../../../../src/store/migrate.js';
import { createLogger } from '../../../../src/log.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

/**
 * A relay whose delete is lost after Redis took its batch (its commit failed, its process died):
 * the rows come back and are posted again, and the marks the first post set make that add
 * nothing. Real PostgreSQL and Redis; the fault is the commit that fails after the post.
 */
describe('outbox relay: a batch posted again after a lost commit', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
    await migrate(env.sql, env.schema, env.log);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('adds each tell to its mailbox once', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    for (const key of keys) {
      await env.sql`
        INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
        VALUES ('tell', 'sender', 's', ${`m-${key}`}, 0,
                ${env.sql.json({ type: 'counter', key, message: { kind: 'add', by: 1 } })})`;
    }
    const real = createPgTellOutbox(env.sql);
    let lose = true;
    const relay = new OutboxRelay({
      outbox: {
        forget: (sent) => real.forget(sent),
        relay: (batch, minAgeMs, post) =>
          real.relay(batch, minAgeMs, async (tells) => {
            await post(tells);
            if (lose) {
              lose = false;
              throw new Error('the commit was lost');
            }
          }),
      },
      redis: env.redis,
      keys: env.keys,
      partitionsOf: () => 4,
      types: new Set(['counter']),
      log: createLogger('silent', 'test'),
      options: { batch: 256, pollMs: 50, graceMs: 0 },
    }).start();
    try {
      const left = async () =>
        (await env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox WHERE topic = 'tell'`)[0]!.n;
      const deadline = Date.now() + 10_000;
      while ((lose || (await left()) > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(lose).toBe(false);
      expect(await left()).toBe(0);
    } finally {
      await relay.close();
    }
    const perMailbox = new Map<string, number>();
    for (const key of keys) {
      const stream = env.keys.mailbox('counter', partitionOf(key, 4));
      perMailbox.set(stream, (perMailbox.get(stream) ?? 0) + 1);
    }
    for (const [stream, n] of perMailbox) expect(await env.redis.xlen(stream)).toBe(n);
  });
});
