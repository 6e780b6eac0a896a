import { partitionOf } from '../actors/runtime/partitioning.js';
import { recordOfFact } from '../actors/runtime/types.js';
import {
  FencedError,
  factKey,
  fenceKey,
  type FactRef,
  type BatchCommit,
  type IdleRetirement,
  type SnapshotStore,
  type Slot,
  type Tallies,
} from '../actors/runtime/ports.js';

/**
 * The runtime's `SnapshotStore` in memory: the same rules as the PostgreSQL store (fenced
 * owners, snapshots that only advance, a commit that writes all or nothing), for unit tests that
 * run the runtime's logic with no services. It passes the same conformance suite
 * (test/support/snapshot-store-suite.ts). Not for deployments: nothing survives the process.
 */
export class MemorySnapshotStore implements SnapshotStore {
  private readonly snapshots = new Map<string, Slot & { epoch: number; updatedAt: number }>();
  private readonly fences = new Map<string, { epoch: number; owner: string }>();
  /** Outbox rows and records written, by their unique keys (as the tables' conflict targets). */
  readonly outbox = new Map<string, { type: string; topic: string; payload: unknown }>();
  readonly records = new Map<string, { type: string; key: string; kind: string; body: unknown }>();
  /** Facts, by type and {@link factKey}. */
  readonly facts = new Map<string, unknown>();
  /** Tally rows, by type, actor key, name and stripe (the writer's type and partition), as bigints. */
  readonly tallies = new Map<string, bigint>();
  /** Read model rows, by table and actor key. */
  readonly views = new Map<string, Map<string, Record<string, unknown>>>();

  /** `now`: the store's clock, which stamps each snapshot written (as PostgreSQL's now()). */
  constructor(private readonly now: () => number = Date.now) {}

  load(type: string, keys: readonly string[]): Promise<Map<string, Slot>> {
    const slots = new Map<string, Slot>();
    for (const key of keys) {
      const s = this.snapshots.get(`${type}\u0000${key}`);
      if (s)
        slots.set(key, {
          state: s.state === null ? undefined : copy(s.state),
          version: s.version,
          lastMsgId: s.lastMsgId,
        });
    }
    return Promise.resolve(slots);
  }

  loadFacts(type: string, refs: readonly FactRef[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    for (const r of refs) {
      // A record read as a fact (types.ts, recordFact): the body of this actor's record.
      const rec = recordOfFact(r.id);
      const record = rec && this.records.get(`${type}\u0000${rec.kind}\u0000${rec.id}`);
      const body = rec
        ? record && record.key === r.key
          ? record.body
          : undefined
        : this.facts.get(`${type}\u0000${factKey(r.key, r.id)}`);
      if (body !== undefined) found.set(factKey(r.key, r.id), copy(body));
    }
    return Promise.resolve(found);
  }

  loadTallies(type: string, keys: readonly string[]): Promise<Map<string, Tallies>> {
    const wanted = new Set(keys);
    const sums = new Map<string, Record<string, bigint>>();
    for (const [id, amount] of this.tallies) {
      const [t, key = '', name = ''] = id.split('\u0000');
      if (t !== type || !wanted.has(key)) continue;
      const byName = sums.get(key) ?? {};
      byName[name] = (byName[name] ?? 0n) + amount;
      sums.set(key, byName);
    }
    const tallies = new Map<string, Tallies>();
    for (const [key, byName] of sums) {
      tallies.set(key, Object.fromEntries(Object.entries(byName).map(([n, v]) => [n, String(v)])));
    }
    return Promise.resolve(tallies);
  }

  takeFence(type: string, partition: number, owner: string): Promise<number> {
    const epoch = (this.fences.get(fenceKey(type, partition))?.epoch ?? 0) + 1;
    this.fences.set(fenceKey(type, partition), { epoch, owner });
    return Promise.resolve(epoch);
  }

  async commit(batch: BatchCommit): Promise<void> {
    const held = await this.commitMany([batch]);
    if (!held.has(fenceKey(batch.type, batch.partition))) {
      throw new FencedError(`partition ${batch.type}/${batch.partition} is no longer fenced at epoch ${batch.epoch}`);
    }
  }

  commitMany(batches: readonly BatchCommit[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const b of batches) {
      if (this.fences.get(fenceKey(b.type, b.partition))?.epoch === b.epoch) held.add(fenceKey(b.type, b.partition));
    }
    const writing = batches.filter((b) => held.has(fenceKey(b.type, b.partition)));
    // All or nothing, as the one statement of the PostgreSQL store: a snapshot that does not
    // advance (written by another owner) aborts the whole commit.
    for (const b of writing) {
      for (const [key, slot] of b.dirty) {
        const now = this.snapshots.get(`${b.type}\u0000${key}`);
        if (now && (now.epoch > b.epoch || now.version >= slot.version)) {
          return Promise.reject(new FencedError('hearth commit aborted: a snapshot did not advance'));
        }
      }
    }
    for (const b of writing) {
      for (const [key, slot] of b.dirty) {
        this.snapshots.set(`${b.type}\u0000${key}`, {
          // An actor with no state that emitted effects keeps JSON null, as the PostgreSQL store.
          state: copy(slot.state) ?? null,
          version: slot.version,
          lastMsgId: slot.lastMsgId,
          epoch: b.epoch,
          updatedAt: this.now(),
        });
      }
      if (b.view) {
        const table = this.views.get(b.view.table) ?? new Map<string, Record<string, unknown>>();
        this.views.set(b.view.table, table);
        for (const v of b.view.rows) {
          if (v.row) table.set(v.key, copy(v.row) as Record<string, unknown>);
          else table.delete(v.key);
        }
      }
      for (const o of b.outbox) {
        const id = `${b.type}\u0000${o.key}\u0000${o.msgId}\u0000${o.seq}`;
        if (!this.outbox.has(id)) this.outbox.set(id, { type: b.type, topic: o.topic, payload: copy(o.payload) });
      }
      for (const t of b.tallies ?? []) {
        const id = `${t.type}\u0000${t.key}\u0000${t.name}\u0000${b.type}:${b.partition}`;
        this.tallies.set(id, (this.tallies.get(id) ?? 0n) + BigInt(t.by));
      }
      for (const f of b.facts ?? []) {
        const id = `${b.type}\u0000${factKey(f.key, f.id)}`;
        if (f.body === null || f.body === undefined) this.facts.delete(id);
        else this.facts.set(id, copy(f.body));
      }
      for (const r of b.records ?? []) {
        const id = `${b.type}\u0000${r.kind}\u0000${r.id}`;
        if (!this.records.has(id)) this.records.set(id, { type: b.type, key: r.key, kind: r.kind, body: copy(r.body) });
      }
    }
    return Promise.resolve(held);
  }

  retireIdle(r: IdleRetirement): Promise<string[]> {
    const held = [...r.owned].filter(([p, epoch]) => this.fences.get(fenceKey(r.type, p))?.epoch === epoch);
    const partitions = new Set(held.map(([p]) => p));
    const gone: string[] = [];
    for (const [id, s] of this.snapshots) {
      if (gone.length >= r.limit) break;
      const [type, key = ''] = id.split('\u0000');
      if (type !== r.type || s.updatedAt >= r.idleBefore.getTime()) continue;
      if (!partitions.has(partitionOf(key, r.partitions))) continue;
      this.snapshots.delete(id);
      if (r.viewTable) this.views.get(r.viewTable)?.delete(key);
      gone.push(key);
    }
    return Promise.resolve(gone);
  }
}

/** As JSONB would keep it: a copy, so a caller's later change of its object changes nothing stored. */
function copy(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
