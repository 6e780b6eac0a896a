import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { counterActor, type CounterState } from '../../../../src/actors/counter/index.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { tellEffect } from '../../../../src/actors/tell-effect.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { countOf, eventually, isolated, type Isolated } from '../../../support/isolated.js';

/** A test actor that tells a counter to add one, through the outbox, each time it is asked. */
const forwarder: ActorDefinition<{ sent: number }, { kind: 'forward'; to: string }> = {
  type: 'forwarder',
  messages: z.object({ kind: z.literal('forward'), to: z.string() }).strict(),
  persistence: { mode: 'commit-before-reply' },
  decide: (state, msg) => {
    const sent = (state?.sent ?? 0) + 1;
    return {
      state: { sent },
      reply: { sent },
      effects: [tellEffect({ type: 'counter', key: msg.to }, { kind: 'add', by: 1, seq: sent })],
    };
  },
};

const actors = [counterActor, forwarder] as readonly ActorDefinition[];

describe('outbox relay: one actor tells another through the outbox', () => {
  let env: Isolated;
  const started: Hearth[] = [];
  const start = async (role: 'all' | 'gateway' | 'worker'): Promise<Hearth> => {
    const h = await startHearth(env.config({ ROLE: role, ACTOR_PARTITIONS: '4' }), env.log, { actors });
    started.push(h);
    return h;
  };
  const counter = (h: Hearth, key: string): Promise<CounterState> =>
    h.client!.ask<CounterState>('counter', key, { kind: 'get' });
  const tellsLeft = () =>
    countOf(env.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox WHERE topic IN ('tell', 'tells')`);

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    for (const h of started.splice(0)) await h.close();
    await env.cleanup();
  });

  it('delivers every told message, in the order each sender committed them, and empties the outbox', async () => {
    const h = await start('all');
    const asks = [];
    for (let i = 0; i < 50; i++)
      asks.push(h.client!.ask('forwarder', `f${i % 5}`, { kind: 'forward', to: `c${i % 5}` }));
    await Promise.all(asks);
    for (let c = 0; c < 5; c++) {
      const s = await eventually(
        () => counter(h, `c${c}`),
        (v) => v.count === 10,
      );
      // Each forwarder numbered its tells 1..10: none lost, none doubled, none out of order.
      expect(s).toMatchObject({ count: 10, applied: 10, lastSeq: 10, outOfOrder: 0 });
    }
    // A posted tell's row is deleted after its post, on a connection of its own that does not
    // wait for its WAL flush (tell-outbox.ts): soon after the delivery, not with it.
    expect(await eventually(tellsLeft, (n) => n === 0)).toBe(0);
    await h.close();
    started.length = 0;
  });

  it('posts the rows a stopped worker left, drops a row naming no actor type, and keeps the rest', async () => {
    const gateway = await start('gateway');
    // What a worker that died after its commit, before its relay ran, leaves behind.
    await env.sql`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      SELECT 'tell', 'forwarder', 'dead', '1-' || i, 0,
             jsonb_build_object('type', 'counter', 'key', 'left',
                                'message', jsonb_build_object('kind', 'add', 'by', 1, 'seq', i))
      FROM generate_series(1, 20) AS i`;
    await env.sql`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      VALUES ('tell', 'forwarder', 'dead', '2-0', 0, ${JSON.stringify({ type: 'nobody', key: 'x', message: { kind: 'add' } })}::text::jsonb)`;
    expect(await tellsLeft()).toBe(21);
    await start('worker');
    const s = await eventually(
      () => counter(gateway, 'left'),
      (v) => v.count === 20,
    );
    expect(s).toMatchObject({ count: 20, lastSeq: 20, outOfOrder: 0 });
    await eventually(tellsLeft, (n) => n === 0);
  });

  it("posts a batch's row of tells a stopped worker left, each tell once and in order", async () => {
    const gateway = await start('gateway');
    // A commit's tells as one row (src/store/tell-batch.ts), left by a worker that died before
    // posting them; one of them was posted already (its row of the older kind stays too).
    const tells = Array.from({ length: 12 }, (_, i) => ({
      key: `f-batch-${i % 3}`,
      msg: `7-${i}`,
      seq: 0,
      payload: { type: 'counter', key: 'batched', message: { kind: 'add', by: 1, seq: i + 1 } },
    }));
    await env.sql`
      INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
      VALUES ('tells', 'forwarder', '#p0', '7-0', -1, ${JSON.stringify(tells)}::text::jsonb),
             ('tell', 'forwarder', 'f-batch-0', '7-0', 0, ${JSON.stringify(tells[0]!.payload)}::text::jsonb)`;
    expect(await tellsLeft()).toBe(2);
    await start('worker');
    const s = await eventually(
      () => counter(gateway, 'batched'),
      (v) => v.count >= 12,
    );
    expect(s).toMatchObject({ count: 12, lastSeq: 12, outOfOrder: 0 });
    await eventually(tellsLeft, (n) => n === 0);
  });
});
