import type { Mailbox, OutgoingReply, PartitionMailbox, PoisonMessage, RawEntry } from './ports.js';
import { compareStreamIds } from './stream-id.js';

interface Pending {
  consumer: string;
  /** When it was delivered or last claimed (the broker's clock). */
  since: number;
}

/** One partition's stream and its group, as Redis keeps them. */
interface Partition {
  entries: Array<{ id: string; fields: string[] }>;
  /** Absent until a group is made (ensureGroup). */
  group?: { lastDelivered: string; pending: Map<string, Pending>; consumers: Set<string> };
  stranded: Set<string>;
  attempts: Map<string, number>;
  /** Reads waiting for an entry here. */
  waiting: Set<() => void>;
}

/**
 * The runtime's mailboxes in memory, with the semantics of Redis streams and consumer groups
 * the runtime relies on (delivery in id order, a pending list per consumer, claims, idle times,
 * trimming below what every reader is done with). Like a Redis server, one broker serves every
 * worker: {@link mailbox} gives one worker's view of one type. For unit tests of the runtime's
 * logic with no services; it passes the same conformance suite as the Redis adapter
 * (test/support/mailbox-suite.ts). Not for deployments: nothing survives the process.
 */
export class MemoryMailboxes {
  private readonly partitions = new Map<string, Partition>();
  /** Dead letters by type: what the dead-letter stream would hold. */
  readonly dead = new Map<string, Array<PoisonMessage & { partition: number; worker: string }>>();
  /** Reply streams by name; a reply to a stream nobody opened is dropped (as XADD NOMKSTREAM). */
  readonly replies = new Map<string, OutgoingReply[]>();
  /** Reply streams a gateway reads as they come (memory-actor-client.ts), by name. */
  private readonly listeners = new Map<string, (reply: OutgoingReply) => void>();
  private lastId = { ms: 0, seq: 0 };

  /** `now`: the broker's clock (ids and idle times), ms. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Adds an entry to a partition's mailbox (XADD); returns its id. */
  send(type: string, partition: number, fields: string[]): string {
    const ms = Math.max(this.now(), this.lastId.ms);
    this.lastId = { ms, seq: ms === this.lastId.ms ? this.lastId.seq + 1 : 0 };
    const id = `${ms}-${this.lastId.seq}`;
    const p = this.part(type, partition);
    p.entries.push({ id, fields });
    for (const wake of [...p.waiting]) wake();
    return id;
  }

  /** Opens a reply stream, as a gateway's reply reader does. */
  openReplies(stream: string): void {
    if (!this.replies.has(stream)) this.replies.set(stream, []);
  }

  /**
   * Hands every reply to `stream` to `onReply` as it is sent, as a gateway's blocking read of its
   * reply stream would; returns the function that stops it (later replies are dropped).
   */
  listen(stream: string, onReply: (reply: OutgoingReply) => void): () => void {
    this.listeners.set(stream, onReply);
    return () => this.listeners.delete(stream);
  }

  /** The entries still in a partition's mailbox (not trimmed). */
  length(type: string, partition: number): number {
    return this.part(type, partition).entries.length;
  }

  mailbox(type: string, consumer: string): Mailbox {
    return new MemoryMailbox(this, type, consumer);
  }

  /** @internal The state of one partition (made on first use). */
  part(type: string, partition: number): Partition {
    const id = `${type}/${partition}`;
    let p = this.partitions.get(id);
    if (!p) {
      p = { entries: [], stranded: new Set(), attempts: new Map(), waiting: new Set() };
      this.partitions.set(id, p);
    }
    return p;
  }

  /** @internal */
  clock(): number {
    return this.now();
  }

  /** @internal Sends replies; returns how many were refused (none: every stream holds entries). */
  reply(replies: readonly OutgoingReply[]): number {
    for (const r of replies) {
      const listener = this.listeners.get(r.stream);
      // Later, as a reply read from Redis comes: the worker's settle returns first.
      if (listener) queueMicrotask(() => listener(r));
      else this.replies.get(r.stream)?.push(r);
    }
    return 0;
  }
}

class MemoryMailbox implements Mailbox {
  private readonly partitions = new Map<number, MemoryPartition>();
  private wakeReads = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly broker: MemoryMailboxes,
    private readonly type: string,
    private readonly consumer: string,
  ) {}

  partition(p: number): MemoryPartition {
    let m = this.partitions.get(p);
    if (!m) {
      m = new MemoryPartition(this.broker, this.type, p, this.consumer);
      this.partitions.set(p, m);
    }
    return m;
  }

  open(): Promise<void> {
    this.closed = false;
    return Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.interrupt();
  }

  interrupt(): void {
    for (const wake of [...this.wakeReads]) wake();
  }

  async read(
    cursors: ReadonlyArray<{ partition: number; cursor: string }>,
    count: number,
    blockMs: number | undefined,
  ): Promise<Map<number, RawEntry[]>> {
    if (this.closed) throw new Error('mailbox closed');
    const found = this.readNow(cursors, count);
    const mayWait = blockMs !== undefined && cursors.every((c) => c.cursor === '>');
    if (found.size > 0 || !mayWait) return found;
    await new Promise<void>((resolve) => {
      const parts = cursors.map((c) => this.broker.part(this.type, c.partition));
      const done = () => {
        clearTimeout(timer);
        for (const p of parts) p.waiting.delete(done);
        this.wakeReads.delete(done);
        resolve();
      };
      const timer = setTimeout(done, blockMs);
      for (const p of parts) p.waiting.add(done);
      this.wakeReads.add(done);
    });
    if (this.closed) throw new Error('mailbox closed');
    return this.readNow(cursors, count);
  }

  private readNow(
    cursors: ReadonlyArray<{ partition: number; cursor: string }>,
    count: number,
  ): Map<number, RawEntry[]> {
    const out = new Map<number, RawEntry[]>();
    for (const c of cursors) {
      const got = this.partition(c.partition).readNow(c.cursor, count);
      if (got.length > 0) out.set(c.partition, got);
    }
    return out;
  }

  settleMany(
    batches: ReadonlyArray<{ partition: number; ids: readonly string[]; replies: readonly OutgoingReply[] }>,
  ): Promise<number> {
    for (const b of batches) this.partition(b.partition).ack(b.ids);
    return Promise.resolve(this.broker.reply(batches.flatMap((b) => b.replies)));
  }
}

class MemoryPartition implements PartitionMailbox {
  constructor(
    private readonly broker: MemoryMailboxes,
    private readonly type: string,
    readonly partition: number,
    private readonly consumer: string,
  ) {}

  private get state(): Partition {
    return this.broker.part(this.type, this.partition);
  }

  private get group(): NonNullable<Partition['group']> {
    const g = this.state.group;
    if (!g) throw new Error(`NOGROUP no consumer group for ${this.type}/${this.partition}`);
    return g;
  }

  ensureGroup(): Promise<void> {
    this.state.group ??= { lastDelivered: '0-0', pending: new Map(), consumers: new Set() };
    return Promise.resolve();
  }

  /** @internal XREADGROUP on this partition alone. */
  readNow(cursor: string, count: number): RawEntry[] {
    const g = this.group;
    g.consumers.add(this.consumer);
    const { entries } = this.state;
    if (cursor === '>') {
      const fresh = entries.filter((e) => compareStreamIds(e.id, g.lastDelivered) > 0).slice(0, count);
      for (const e of fresh) g.pending.set(e.id, { consumer: this.consumer, since: this.broker.clock() });
      if (fresh.length > 0) g.lastDelivered = fresh[fresh.length - 1]!.id;
      return fresh.map((e): RawEntry => [e.id, e.fields]);
    }
    // This consumer's pending history after the cursor; an entry trimmed away reads as null.
    const mine = [...g.pending]
      .filter(([id, p]) => p.consumer === this.consumer && compareStreamIds(id, cursor) > 0)
      .map(([id]) => id)
      .sort(compareStreamIds)
      .slice(0, count);
    return mine.map((id): RawEntry => [id, entries.find((e) => e.id === id)?.fields ?? null]);
  }

  claimAll(): Promise<string[]> {
    const ids = [...this.group.pending.keys()].sort(compareStreamIds);
    for (const id of ids) this.group.pending.set(id, { consumer: this.consumer, since: this.broker.clock() });
    return Promise.resolve(ids);
  }

  claimStranded(minIdleMs: number): Promise<string[]> {
    const now = this.broker.clock();
    const idle = [...this.group.pending]
      .filter(([, p]) => p.consumer !== this.consumer && now - p.since >= minIdleMs)
      .map(([id]) => id)
      .sort(compareStreamIds);
    for (const id of idle) {
      this.state.stranded.add(id);
      this.group.pending.set(id, { consumer: this.consumer, since: now });
    }
    return Promise.resolve(idle);
  }

  strandedAmong(ids: readonly string[]): Promise<string[]> {
    return Promise.resolve(ids.filter((id) => this.state.stranded.has(id)));
  }

  unmarkStranded(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.state.stranded.delete(id);
    return Promise.resolve();
  }

  dropIdleConsumers(): Promise<void> {
    const holding = new Set([...this.group.pending.values()].map((p) => p.consumer));
    for (const c of [...this.group.consumers])
      if (c !== this.consumer && !holding.has(c)) this.group.consumers.delete(c);
    return Promise.resolve();
  }

  countClaims(ids: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const id of ids) {
      const n = (this.state.attempts.get(id) ?? 0) + 1;
      this.state.attempts.set(id, n);
      counts.set(id, n);
    }
    return Promise.resolve(counts);
  }

  forgetClaims(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.state.attempts.delete(id);
    return Promise.resolve();
  }

  trim(): Promise<void> {
    const g = this.group;
    const s = this.state;
    const pending = [...g.pending.keys()].sort(compareStreamIds)[0];
    // Below the oldest pending entry, or past the last delivered one when nothing is pending.
    const below = (id: string) =>
      pending ? compareStreamIds(id, pending) < 0 : compareStreamIds(id, g.lastDelivered) <= 0;
    s.entries = s.entries.filter((e) => !below(e.id));
    for (const id of [...s.stranded]) if (below(id)) s.stranded.delete(id);
    for (const id of [...s.attempts.keys()]) if (below(id)) s.attempts.delete(id);
    return Promise.resolve();
  }

  settle(ids: readonly string[], replies: readonly OutgoingReply[], dead: readonly PoisonMessage[]): Promise<number> {
    const letters = this.broker.dead.get(this.type) ?? [];
    this.broker.dead.set(this.type, letters);
    for (const d of dead) letters.push({ ...d, partition: this.partition, worker: this.consumer });
    this.ack(ids);
    return Promise.resolve(this.broker.reply(replies));
  }

  /** @internal XACK. */
  ack(ids: readonly string[]): void {
    for (const id of ids) this.group.pending.delete(id);
  }
}
