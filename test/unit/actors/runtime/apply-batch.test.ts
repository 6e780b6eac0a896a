import { describe, expect, it } from 'vitest';
import { counterActor } from '../../../../src/actors/counter/index.js';
import { echoActor } from '../../../../src/actors/echo/index.js';
import { applyBatch, derivedId, emptySlot } from '../../../../src/actors/runtime/apply-batch.js';
import { mergeApplied } from '../../../../src/actors/runtime/partition-batch.js';
import { FencedError, type Slot } from '../../../../src/actors/runtime/ports.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';
import type { MailboxEntry } from '../../../../src/actors/runtime/entry-codec.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';

const now = new Date('2026-01-01T00:00:00Z');
const counter = counterActor as ActorDefinition;
let n = 0;
function entry(key: string, body: unknown, reply = 'hearth:reply:gw'): MailboxEntry {
  n++;
  return {
    id: `100-${n}`,
    key,
    kind: 'x',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    reply,
    corr: `c${n}`,
    ts: 0,
  };
}

describe('applyBatch', () => {
  it('applies entries in stream order per key and replies to each', () => {
    const entries = [
      entry('a', { kind: 'add', by: 1, seq: 1 }),
      entry('b', { kind: 'add', by: 5, seq: 1 }),
      entry('a', { kind: 'add', by: 2, seq: 2 }),
    ];
    const out = applyBatch(counter, entries, new Map(), now);
    // One past the state the batch started from, however many messages the key took.
    expect(out.dirty.get('a')).toEqual({
      state: { count: 3, applied: 2, lastSeq: 2, outOfOrder: 0 },
      version: 1,
      lastMsgId: entries[2]!.id,
    });
    expect(out.dirty.get('b')?.version).toBe(1);
    expect(out.replies.map((r) => r.ok)).toEqual([true, true, true]);
    expect(JSON.parse(out.replies[2]!.body)).toMatchObject({ count: 3 });
    expect(out.outbox.map((o) => o.msgId)).toEqual(entries.map((e) => e.id));
  });

  it('cannot write a batch applied on a stale state over a newer one, however many messages it took', async () => {
    const store = new MemorySnapshotStore();
    const epoch = await store.takeFence('counter', 0, 'w');
    const commit = (dirty: Map<string, Slot>) =>
      store.commit({ type: 'counter', partition: 0, epoch, dirty, outbox: [] });
    const base = emptySlot();
    const first = applyBatch(counter, [entry('a', { kind: 'add', by: 1 })], new Map([['a', base]]), now);
    await commit(first.dirty);
    const newer = first.dirty.get('a')!;
    await commit(applyBatch(counter, [entry('a', { kind: 'add', by: 1 })], new Map([['a', newer]]), now).dirty);
    // A round that still had the first state (a load that landed late, say) applies two more.
    const stale = applyBatch(
      counter,
      [entry('a', { kind: 'add', by: 5 }), entry('a', { kind: 'add', by: 5 })],
      new Map([['a', newer]]),
      now,
    );
    await expect(commit(stale.dirty)).rejects.toBeInstanceOf(FencedError);
    expect((await store.load('counter', ['a'])).get('a')?.state).toMatchObject({ count: 2 });
  });

  it("cannot write a write-behind flush of rounds applied on a stale state over a newer one (the flush is at its first round's version)", async () => {
    const store = new MemorySnapshotStore();
    const epoch = await store.takeFence('counter', 0, 'w');
    const commit = (dirty: ReadonlyMap<string, Slot>) =>
      store.commit({ type: 'counter', partition: 0, epoch, dirty, outbox: [] });
    // Another owner's commit: 'a' is at version 1 now.
    await commit(applyBatch(counter, [entry('a', { kind: 'add', by: 1 })], new Map(), now).dirty);
    // Two held rounds on a state that missed it (version 0), each on the one before.
    const round = (slots: ReadonlyMap<string, Slot>) =>
      applyBatch(counter, [entry('a', { kind: 'add', by: 5 })], slots, now);
    const r1 = round(new Map());
    const r2 = round(r1.dirty);
    const applied = (o: ReturnType<typeof round>) => ({ ids: [], entries: [], dead: [], outcome: o });
    const merged = mergeApplied([applied(r1), applied(r2)]);
    expect(merged.outcome.dirty.get('a')).toMatchObject({ version: 1, state: { count: 10 } });
    await expect(commit(merged.outcome.dirty)).rejects.toBeInstanceOf(FencedError);
    expect((await store.load('counter', ['a'])).get('a')?.state).toMatchObject({ count: 1 });
  });

  it('skips entries at or below the snapshot last_msg_id (redelivery)', () => {
    const slots = new Map<string, Slot>([
      ['a', { state: { count: 7, applied: 7, lastSeq: 0, outOfOrder: 0 }, version: 7, lastMsgId: '100-999999' }],
    ]);
    const out = applyBatch(counter, [entry('a', { kind: 'add', by: 1 })], slots, now);
    expect(out.duplicates).toBe(1);
    expect(out.dirty.size).toBe(0);
    expect(out.replies).toEqual([]);
    expect(out.outbox).toEqual([]);
  });

  it('does not mutate the slots it is given', () => {
    const slot: Slot = { ...emptySlot(), state: { count: 1, applied: 1, lastSeq: 0, outOfOrder: 0 }, version: 1 };
    const slots = new Map([['a', slot]]);
    const frozen = JSON.stringify(slot);
    applyBatch(counter, [entry('a', { kind: 'add', by: 3 })], slots, now);
    expect(JSON.stringify(slots.get('a'))).toBe(frozen);
  });

  it('answers a rejection with ok=false and leaves state unchanged', () => {
    const out = applyBatch(counter, [entry('a', { kind: 'fail' })], new Map(), now);
    expect(out.dirty.size).toBe(0);
    expect(out.replies[0]).toMatchObject({ ok: false });
    expect(JSON.parse(out.replies[0]!.body)).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'this counter refuses on request',
    });
  });

  it('refuses bodies that are not JSON or fail the message schema', () => {
    const out = applyBatch(
      counter,
      [entry('a', '{nope'), entry('a', { kind: 'add', by: 0 }), entry('a', { kind: 'unknown' })],
      new Map(),
      now,
    );
    expect(out.replies.map((r) => (JSON.parse(r.body) as { code: string }).code)).toEqual([
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
    ]);
    expect(out.dirty.size).toBe(0);
  });

  it('collects a throwing decide as poison and goes on with the batch', () => {
    const out = applyBatch(
      echoActor,
      [entry('e', { kind: 'boom' }), entry('e', { kind: 'echo', payload: 1 })],
      new Map(),
      now,
    );
    expect(out.poison).toHaveLength(1);
    expect(out.poison[0]!.error).toMatch(/boom/);
    expect(out.replies).toHaveLength(1);
    expect(out.dirty.get('e')?.state).toEqual({ echoes: 1 });
  });

  it('sends no reply for a tell (no reply stream)', () => {
    const out = applyBatch(counter, [entry('a', { kind: 'add', by: 1 }, '')], new Map(), now);
    expect(out.replies).toEqual([]);
    expect(out.dirty.size).toBe(1);
  });

  it('keeps state JSON-round-trippable', () => {
    const out = applyBatch(counter, [entry('a', { kind: 'add', by: 4 })], new Map(), now);
    const state = out.dirty.get('a')?.state;
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });
});

describe('derivedId', () => {
  it('is stable for the same message and differs by n, key and message', () => {
    expect(derivedId('t', 'k', '1-0', 0)).toBe(derivedId('t', 'k', '1-0', 0));
    expect(derivedId('t', 'k', '1-0', 1)).not.toBe(derivedId('t', 'k', '1-0', 0));
    expect(derivedId('t', 'k2', '1-0', 0)).not.toBe(derivedId('t', 'k', '1-0', 0));
    expect(derivedId('t', 'k', '1-1', 0)).not.toBe(derivedId('t', 'k', '1-0', 0));
  });
  it('looks like a UUID (version 8, RFC variant)', () => {
    expect(derivedId('t', 'k', '1-0', 0)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('computes the read model row of each dirty key from its newest state', () => {
    const viewed: ActorDefinition = {
      ...counter,
      view: { table: 'counter_views', columns: ['count'], row: (st) => ({ count: (st as { count: number }).count }) },
    };
    const out = applyBatch(
      viewed,
      [entry('a', { kind: 'add', by: 1 }), entry('a', { kind: 'add', by: 2 }), entry('b', { kind: 'get' })],
      new Map(),
      now,
    );
    // `b` was only read: no state, no snapshot, no row.
    expect([...out.views]).toEqual([['a', { count: 3 }]]);
  });

  it('fails a message whose read model row throws, as one whose decide throws, keeping the batch', () => {
    const fragile: ActorDefinition = {
      ...counter,
      view: {
        table: 'counter_views',
        columns: ['count'],
        row: (st) => {
          if ((st as { count: number }).count > 5) throw new Error('no row past five');
          return { count: (st as { count: number }).count };
        },
      },
    };
    const bad = entry('a', { kind: 'add', by: 9 });
    const out = applyBatch(fragile, [bad, entry('b', { kind: 'add', by: 1 })], new Map(), now);
    expect(out.poison.map((p) => [p.entry.id, p.error])).toEqual([[bad.id, 'no row past five']]);
    expect([...out.dirty.keys()]).toEqual(['b']);
    expect([...out.views]).toEqual([['b', { count: 1 }]]);
  });

  it("sums a batch's tally additions per actor and name, and fails a message whose tally adds no integer", () => {
    const tallying: ActorDefinition = {
      ...counter,
      decide: (st, msg, ctx) => {
        const d = counter.decide(st, msg, ctx);
        const by = (msg as unknown as { by: number }).by;
        return { ...d, tallies: [{ type: 'acct', key: 'x', name: 'n', by: by === 7 ? '7.5' : String(by) }] };
      },
    };
    const first = entry('a', { kind: 'add', by: 2, seq: 1 });
    const bad = entry('a', { kind: 'add', by: 7, seq: 2 });
    const out = applyBatch(tallying, [first, bad, entry('b', { kind: 'add', by: 3, seq: 1 })], new Map(), now);
    expect(out.poison.map((p) => p.entry.id)).toEqual([bad.id]);
    expect([...out.tallies.values()]).toEqual([{ type: 'acct', key: 'x', name: 'n', by: '5' }]);
  });
});
