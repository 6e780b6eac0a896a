import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxRelay } from '../../../../src/store/redis/outbox-relay.js';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { isCluster } from '../../../../src/store/redis/redis.js';
import type { BatchCommit, TellSender } from '../../../../src/actors/runtime/ports.js';
import { createPgTellOutbox } from '../../../../src/store/tell-outbox.js';
import { tellBatchRow, TELLS_TOPIC } from '../../../../src/store/tell-batch.js';
import { migrate } from '../../../../src/store/migrate.js';
import { createLogger } from '../../../../src/log.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

/**
 * A worker's group commit hands in several partitions' batches in one tick: their tells go to
 * Redis in one call (one Redis; per node on a cluster), in the order handed in, and their outbox rows (one per batch) are deleted by one statement.
 * Real PostgreSQL and Redis; only the calls are counted.
 */
describe('outbox relay: the tells of one group commit', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
    await migrate(env.sql, env.schema, env.log);
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('posts them in one call, in order, and deletes their rows in one statement', async () => {
    const batches: BatchCommit[] = [0, 1, 2].map((p) => ({
      type: 'sender',
      partition: p,
      epoch: 1,
      dirty: new Map(),
      outbox: [0, 1].map((seq) => ({
        key: `s${p}`,
        msgId: `${p + 1}-0`,
        seq,
        topic: 'tell',
        payload: { type: 'counter', key: 'one', message: { kind: 'add', by: p * 10 + seq } },
      })),
    }));
    // Each batch's tells as its commit writes them: one row (src/store/tell-batch.ts).
    for (const b of batches) {
      const { sender, payload } = tellBatchRow(b)!;
      await env.sql`
        INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
        VALUES (${TELLS_TOPIC}, ${sender.type}, ${sender.key}, ${sender.msgId}, ${sender.seq}, ${env.sql.json(payload as never)})`;
    }
    const real = createPgTellOutbox(env.sql);
    const forgets: TellSender[][] = [];
    let evals = 0;
    const counted = new Proxy(env.redis, {
      get(target, prop, receiver) {
        if (prop === 'eval') evals++;
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const relay = new OutboxRelay({
      outbox: {
        forget: (sent) => {
          forgets.push([...sent]);
          return real.forget(sent);
        },
        relay: () => Promise.resolve(0),
      },
      redis: counted,
      keys: env.keys,
      partitionsOf: () => 4,
      types: new Set(['counter']),
      log: createLogger('silent', 'test'),
      options: { batch: 256, pollMs: 60_000, graceMs: 60_000 },
    });
    for (const b of batches) relay.publish(b);
    const deadline = Date.now() + 5_000;
    while (forgets.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await relay.close();
    // One script call on one Redis; on a cluster each post goes to its mailbox's node (post-once.ts).
    if (!isCluster(env.redis)) expect(evals).toBe(1);
    expect(forgets.map((f) => f.length)).toEqual([3]);
    const [left] = await env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`;
    expect(left!.n).toBe(0);
    const entries = await env.redis.xrange(env.keys.mailbox('counter', partitionOf('one', 4)), '-', '+');
    const order = entries.map(([, fields]) => (JSON.parse(fields[fields.indexOf('body') + 1]!) as { by: number }).by);
    expect(order).toEqual([0, 1, 10, 11, 20, 21]);
  });
});
