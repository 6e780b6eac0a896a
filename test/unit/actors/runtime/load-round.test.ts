import { describe, expect, it } from 'vitest';
import { decodePartition, loadRound } from '../../../../src/actors/runtime/partition-batch.js';
import { encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';
import type { Slot, SnapshotStore } from '../../../../src/actors/runtime/ports.js';
import { SlotCache } from '../../../../src/actors/runtime/slot-cache.js';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { MemorySnapshotStore } from '../../../../src/store/memory-snapshot-store.js';

/** A type with facts: its rounds load states and facts side by side. */
const def = {
  type: 'voucher',
  messages: { safeParse: (m: unknown) => ({ success: true, data: m }) },
  persistence: { mode: 'commit-before-reply' },
  decide: (s: unknown) => ({ state: s }),
  facts: { needs: () => ['some-fact'] },
} as unknown as ActorDefinition;

const stale: Slot = { state: { remaining: 100 }, version: 5, lastMsgId: '1-0' };

/**
 * A store whose facts query fails at once (a dead connection) while its states' query answers
 * later (a connection still finding the new primary), with a snapshot that is stale by then.
 */
function storeWithSlowStatesAndFailingFacts(answerStatesAfterMs: number): SnapshotStore {
  const memory = new MemorySnapshotStore();
  return Object.assign(Object.create(memory) as SnapshotStore, {
    load: () =>
      new Promise<Map<string, Slot>>((r) => setTimeout(() => r(new Map([['v1', stale]])), answerStatesAfterMs)),
    loadFacts: () => Promise.reject(new Error('connection terminated')),
  });
}

describe('loadRound', () => {
  it('fails a round only once its states have landed, so a recovery that clears the cache after it leaves nothing stale behind', async () => {
    const cache = new SlotCache(100);
    const raw: Array<[string, string[]]> = [
      ['2-0', encodeEntry({ key: 'v1', kind: 'redeem', body: '{"kind":"redeem"}', reply: '', corr: '', ts: 0 })],
    ];
    const parts = [{ cache, decoded: decodePartition(cache, raw) }];
    const err = await loadRound({ def, store: storeWithSlowStatesAndFailingFacts(50) }, parts).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'connection terminated' });
    // The worker's recovery: every state in memory is forgotten, to be read again.
    cache.clear();
    await new Promise((r) => setTimeout(r, 100));
    // A state that landed now would be taken for the key's state by the replay's round.
    expect(cache.has('v1')).toBe(false);
  });

  it('loads states and facts when both answer', async () => {
    const memory = new MemorySnapshotStore();
    const cache = new SlotCache(100);
    const raw: Array<[string, string[]]> = [
      ['2-0', encodeEntry({ key: 'v1', kind: 'redeem', body: '{"kind":"redeem"}', reply: '', corr: '', ts: 0 })],
    ];
    const parts = [{ cache, decoded: decodePartition(cache, raw) }];
    await loadRound({ def, store: memory }, parts);
    expect(cache.has('v1')).toBe(true);
    expect(parts[0]!.decoded.facts).toBeInstanceOf(Map);
  });
});
