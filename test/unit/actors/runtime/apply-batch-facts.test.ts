import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyBatch, factsNeeded } from '../../../../src/actors/runtime/apply-batch.js';
import type { MailboxEntry } from '../../../../src/actors/runtime/entry-codec.js';
import { factKey, type Slot } from '../../../../src/actors/runtime/ports.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';

/** A tally that adds each step once (its applied steps are facts), and can forget one. */
const messages = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('add'), step: z.string(), by: z.number() }),
  z.strictObject({ kind: z.literal('forget'), step: z.string() }),
  z.strictObject({ kind: z.literal('ping') }),
  z.strictObject({ kind: z.literal('get') }),
]);
type Msg = z.infer<typeof messages>;
const tally: ActorDefinition<{ total: number }, Msg> = {
  type: 'tally',
  messages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: (m) => ('step' in m ? [`step:${m.step}`] : []) },
  decide(state, msg, ctx) {
    const s = state ?? { total: 0 };
    if (msg.kind === 'get') return { state, reply: s.total };
    // A ping tells someone else and keeps no state of its own.
    if (msg.kind === 'ping') return { state, effects: [{ topic: 'pinged', payload: ctx.key }] };
    if (msg.kind === 'forget') return { state, facts: [{ id: `step:${msg.step}`, body: null }] };
    if (ctx.fact(`step:${msg.step}`) !== undefined) return { state, reply: s.total };
    const next = { total: s.total + msg.by };
    return { state: next, reply: next.total, facts: [{ id: `step:${msg.step}`, body: { by: msg.by } }] };
  },
  view: { table: 'tally_views', columns: ['total'], row: (s) => ({ total: Math.min(s.total, 10) }) },
};
const def = tally as unknown as ActorDefinition;

const now = new Date('2026-11-27T00:00:00Z');
let n = 0;
function entry(key: string, body: Msg): MailboxEntry {
  n++;
  return { id: `200-${n}`, key, kind: body.kind, body: JSON.stringify(body), reply: 'r', corr: `c${n}`, ts: 0 };
}
const slot = (state: unknown, version = 1): Slot => ({ state, version, lastMsgId: '1-0' });

describe('applyBatch with facts', () => {
  it('names the facts each message needs, once per actor and id', () => {
    const needs = factsNeeded(def, [
      entry('a', { kind: 'add', step: 's1', by: 1 }),
      entry('a', { kind: 'add', step: 's1', by: 1 }),
      entry('b', { kind: 'add', step: 's1', by: 1 }),
      entry('a', { kind: 'get' }),
    ]);
    expect(needs).toEqual([
      { key: 'a', id: 'step:s1' },
      { key: 'b', id: 'step:s1' },
    ]);
  });

  it('sees a fact written earlier in the same batch, and writes one row for it', () => {
    const out = applyBatch(
      def,
      [entry('a', { kind: 'add', step: 's1', by: 2 }), entry('a', { kind: 'add', step: 's1', by: 2 })],
      new Map(),
      now,
    );
    expect(out.dirty.get('a')?.state).toEqual({ total: 2 });
    expect([...out.facts.values()]).toEqual([{ key: 'a', id: 'step:s1', body: { by: 2 } }]);
    expect(out.replies.map((r) => r.body)).toEqual(['2', '2']);
  });

  it('sees the loaded facts: a step applied before changes nothing and writes nothing', () => {
    const loaded = new Map([[factKey('a', 'step:s1'), { by: 2 }]]);
    const out = applyBatch(
      def,
      [entry('a', { kind: 'add', step: 's1', by: 2 })],
      new Map([['a', slot({ total: 2 })]]),
      now,
      loaded,
    );
    expect(out.dirty.size).toBe(0);
    expect(out.facts.size).toBe(0);
    expect(out.replies.map((r) => r.body)).toEqual(['2']);
  });

  it('reads a fact deleted earlier in the batch as absent, and keeps the last write of each', () => {
    const loaded = new Map([[factKey('a', 'step:s1'), { by: 2 }]]);
    const out = applyBatch(
      def,
      [
        entry('a', { kind: 'forget', step: 's1' }),
        entry('a', { kind: 'add', step: 's1', by: 5 }),
        entry('a', { kind: 'forget', step: 's1' }),
      ],
      new Map([['a', slot({ total: 2 })]]),
      now,
      loaded,
    );
    expect(out.dirty.get('a')?.state).toEqual({ total: 7 });
    expect([...out.facts.values()]).toEqual([{ key: 'a', id: 'step:s1', body: null }]);
  });

  it('writes nothing for a message that changed nothing (a get)', () => {
    const out = applyBatch(def, [entry('a', { kind: 'get' })], new Map([['a', slot({ total: 4 })]]), now);
    expect(out.dirty.size).toBe(0);
    expect(out.views.size).toBe(0);
    expect(out.replies.map((r) => r.body)).toEqual(['4']);
  });

  it('writes a read model row only when it differs from the one of the state the batch started from', () => {
    // The row shows at most 10: from 12 to 15 the state changes, the row does not.
    const same = applyBatch(
      def,
      [entry('a', { kind: 'add', step: 'x', by: 3 })],
      new Map([['a', slot({ total: 12 })]]),
      now,
    );
    expect(same.dirty.get('a')?.state).toEqual({ total: 15 });
    expect(same.views.size).toBe(0);
    const changed = applyBatch(
      def,
      [entry('a', { kind: 'add', step: 'y', by: 3 })],
      new Map([['a', slot({ total: 5 })]]),
      now,
    );
    expect([...changed.views]).toEqual([['a', { total: 8 }]]);
  });

  it('keeps the message id of an actor with no state whose message emitted an effect', () => {
    const out = applyBatch(def, [entry('p', { kind: 'ping' })], new Map(), now);
    expect(out.dirty.get('p')).toMatchObject({ state: undefined, version: 1 });
    expect(out.outbox).toHaveLength(1);
    expect(out.views.get('p')).toBeUndefined();
  });
});

describe('facts.needs that throws', () => {
  it('dead-letters its message, as a decide that throws, and applies the rest', () => {
    const fragile: ActorDefinition = {
      ...def,
      facts: {
        needs: (m) => {
          if ((m as { step?: string }).step === 'bad') throw new Error('no facts for bad');
          return [];
        },
      },
    };
    const bad = entry('a', { kind: 'add', step: 'bad', by: 1 });
    const batch = [bad, entry('b', { kind: 'add', step: 'ok', by: 1 })];
    expect(factsNeeded(fragile, batch)).toEqual([]);
    const out = applyBatch(fragile, batch, new Map(), now);
    expect(out.poison.map((p) => [p.entry.id, p.error])).toEqual([[bad.id, 'no facts for bad']]);
    expect([...out.dirty.keys()]).toEqual(['b']);
  });
});
