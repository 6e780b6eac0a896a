import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchCommit } from '../../../src/actors/runtime/ports.js';
import { tellEffect } from '../../../src/actors/tell-effect.js';
import { createPgSnapshotStore } from '../../../src/store/snapshot-store.js';
import { createPgTellOutbox } from '../../../src/store/tell-outbox.js';
import { isolated, type Isolated } from '../../support/isolated.js';

/**
 * A commit writes its batch's tells as one outbox row (src/store/tell-batch.ts), beside a row for
 * each other effect; the relay reads each tell back out of it with its own sender, in order, and
 * the publishing worker's delete by the row's identity removes it.
 */
describe("a batch's tells in one outbox row", () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('is written by the commit, read back tell by tell, and deleted by its identity', async () => {
    const store = createPgSnapshotStore(env.sql);
    const epoch = await store.takeFence('forwarder', 3, 'tell-batch-test');
    const tell = (to: string, n: number) => {
      const e = tellEffect({ type: 'counter', key: to }, { kind: 'add', by: n });
      return { topic: e.topic, payload: e.payload };
    };
    const batch: BatchCommit = {
      type: 'forwarder',
      partition: 3,
      epoch,
      dirty: new Map([
        ['a', { state: { sent: 2 }, version: 1, lastMsgId: '5-1' }],
        ['b', { state: { sent: 1 }, version: 1, lastMsgId: '5-2' }],
      ]),
      outbox: [
        { key: 'a', msgId: '5-0', seq: 0, ...tell('x', 1) },
        { key: 'a', msgId: '5-0', seq: 1, topic: 'forwarder.sent', payload: { n: 1 } },
        { key: 'a', msgId: '5-1', seq: 0, ...tell('y', 2) },
        { key: 'b', msgId: '5-2', seq: 0, ...tell('x', 3) },
      ],
    };
    await store.commit(batch);

    const rows = await env.sql<{ topic: string; actor_key: string; msg_id: string; seq: number; payload: unknown }[]>`
      SELECT topic, actor_key, msg_id, seq, payload FROM outbox ORDER BY id`;
    expect(rows.map((r) => [r.topic, r.actor_key, r.msg_id, r.seq])).toEqual([
      ['tells', '#p3', '5-0', -1],
      ['forwarder.sent', 'a', '5-0', 1],
    ]);

    const outbox = createPgTellOutbox(env.sql);
    const posted: unknown[] = [];
    // Taken by the relay (no age asked), rolled back by a failing post: the row stays.
    await expect(
      outbox.relay(10, 0, () => {
        throw new Error('redis down');
      }),
    ).rejects.toThrow('redis down');
    const took = await outbox.relay(10, 0, (tells) => {
      posted.push(...tells);
      return Promise.resolve();
    });
    expect(took).toBe(1); // rows: the batch's one row held the three tells
    expect(posted).toEqual([
      { sender: { type: 'forwarder', key: 'a', msgId: '5-0', seq: 0 }, payload: tell('x', 1).payload },
      { sender: { type: 'forwarder', key: 'a', msgId: '5-1', seq: 0 }, payload: tell('y', 2).payload },
      { sender: { type: 'forwarder', key: 'b', msgId: '5-2', seq: 0 }, payload: tell('x', 3).payload },
    ]);
    const topics = async () => (await env.sql<{ topic: string }[]>`SELECT topic FROM outbox`).map((r) => r.topic);
    expect(await topics()).toEqual(['forwarder.sent']);

    // The publishing worker's path: the next commit's row, deleted by its identity.
    await store.commit({
      ...batch,
      dirty: new Map([['a', { state: { sent: 3 }, version: 2, lastMsgId: '6-0' }]]),
      outbox: [{ key: 'a', msgId: '6-0', seq: 0, ...tell('z', 4) }],
    });
    expect(await topics()).toEqual(['forwarder.sent', 'tells']);
    await outbox.forget([{ type: 'forwarder', key: '#p3', msgId: '6-0', seq: -1 }]);
    expect(await topics()).toEqual(['forwarder.sent']);
  });
});
