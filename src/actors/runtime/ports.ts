import type { MailboxEntry } from './entry-codec.js';

/**
 * What the actor runtime needs from the outside, as interfaces (ports): the store that keeps
 * actor state between rounds, the mailboxes it reads, and word of a store's outage. `src/store`
 * implements the store for PostgreSQL and in memory; `src/store/redis` the mailboxes and the lease
 * table on Redis, `memory-mailbox.ts` and `memory-leases.ts` the same in one process. Each pair passes one conformance suite.
 */

/** An actor's state between rounds, as the store keeps it. */
export interface Slot {
  state: unknown;
  version: number;
  /** Id of the last message applied; anything at or below it is a redelivery. */
  lastMsgId: string;
}

export interface OutboxRow {
  key: string;
  msgId: string;
  seq: number;
  topic: string;
  payload: unknown;
}

export interface RecordRow {
  key: string;
  msgId: string;
  kind: string;
  id: string;
  body: unknown;
}

/** A fact an actor writes beside its snapshot (types.ts, FactsPolicy); `body` null deletes it. */
export interface FactRow {
  key: string;
  id: string;
  body: unknown;
}

/** An amount added to a tally of an actor (types.ts, TallyWrite), in the writer's partition's row. */
export interface TallyRow {
  type: string;
  key: string;
  name: string;
  by: string;
}

/** An actor's tallies, summed over the partitions that wrote to them: by name, decimal strings. */
export type Tallies = Readonly<Record<string, string>>;

/** The identity of one fact of one actor: what a round asks the store for. */
export interface FactRef {
  key: string;
  id: string;
}

/** Where a fact is in a map of loaded facts. */
export const factKey = (key: string, id: string): string => `${key}\u0000${id}`;

/** A commit by a worker that no longer owns the partition (its epoch is not the current one). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

/** An actor's row in its type's read model table; `row` undefined deletes it. */
interface ViewRow {
  key: string;
  row: Record<string, unknown> | undefined;
}

export interface BatchCommit {
  type: string;
  partition: number;
  epoch: number;
  dirty: ReadonlyMap<string, Slot>;
  outbox: readonly OutboxRow[];
  /** Append-only records (absent: none). */
  records?: readonly RecordRow[];
  /** Facts written or deleted, at most one row per actor and fact id (absent: none). */
  facts?: readonly FactRow[];
  /** Tally additions, at most one row per actor, tally and name (absent: none). */
  tallies?: readonly TallyRow[];
  /** The read model rows of the dirty keys (absent: the type has no read model). */
  view?: { table: string; columns: readonly string[]; rows: readonly ViewRow[] };
}

/** Idle actors of the partitions a worker owns, to retire (see RetentionPolicy). */
export interface IdleRetirement {
  type: string;
  /** Partitions of the type, which places a key in one. */
  partitions: number;
  /** The owned partitions, with the epoch each is owned at: others' snapshots are never touched. */
  owned: ReadonlyMap<number, number>;
  /** Snapshots last written before this are retired. */
  idleBefore: Date;
  /** Snapshots retired at most by this call. */
  limit: number;
  /** The type's read model table, whose rows of retired actors go too. */
  viewTable?: string;
}

/** Where actor state lives between batches. */
export interface SnapshotStore {
  load(type: string, keys: readonly string[]): Promise<Map<string, Slot>>;
  /** The facts that exist among these, by {@link factKey}. */
  loadFacts(type: string, refs: readonly FactRef[]): Promise<Map<string, unknown>>;
  /** The tallies of these actors (those with none are absent). */
  loadTallies(type: string, keys: readonly string[]): Promise<Map<string, Tallies>>;
  /** Makes `owner` the fenced owner of a partition; returns its new epoch. */
  takeFence(type: string, partition: number, owner: string): Promise<number>;
  /** One transaction: fence check, every snapshot, every outbox row. Throws {@link FencedError}. */
  commit(batch: BatchCommit): Promise<void>;
  /**
   * Several partitions' batches in one transaction; writes only those whose epoch still holds and
   * returns their `type/partition` keys (a batch with nothing to write always counts as held).
   */
  commitMany(batches: readonly BatchCommit[]): Promise<Set<string>>;
  /**
   * Deletes snapshots not written since `idleBefore` from the owned partitions whose epoch still
   * holds (a snapshot written meanwhile stays); returns the keys deleted.
   */
  retireIdle(r: IdleRetirement): Promise<string[]>;
}

export const fenceKey = (type: string, partition: number): string => `${type}/${partition}`;

/**
 * Whether a dependency is down now, and word of each change: what the HTTP server answers 503 at
 * once from, and what a worker's retry wakes on.
 */
export interface OutageSignal {
  /** Why it is down (an error code, or "no answer within N ms"), or undefined while it is up. */
  current(): string | undefined;
  /** Called with the cause when it goes down, with undefined when it is back. Returns the unsubscribe. */
  onChange(listener: (down: string | undefined) => void): () => void;
}

/** A reply to an ask, bound for the asker's reply stream. */
export interface OutgoingReply {
  stream: string;
  corr: string;
  ok: boolean;
  body: string;
}

/** An entry set aside (dead-lettered), and why. */
export interface PoisonMessage {
  entry: MailboxEntry;
  error: string;
}

/** A mailbox entry as read: its id and its fields (null: deleted since it was delivered). */
export type RawEntry = [string, string[] | null];

/**
 * One partition's mailbox, as its owner (one consumer of the mailbox's group) uses it. Entries
 * are delivered in id order; one delivered and not acknowledged is pending with its consumer.
 */
export interface PartitionMailbox {
  readonly partition: number;
  /** Creates the group at the start of the mailbox, so entries sent before it are read (idempotent). */
  ensureGroup(): Promise<void>;
  /** Moves every pending entry of the group (earlier owners' too) to this consumer; their ids. */
  claimAll(): Promise<string[]>;
  /**
   * Marks stranded, then moves to this consumer, the entries other consumers have held for
   * `minIdleMs` or more; their ids.
   */
  claimStranded(minIdleMs: number): Promise<string[]>;
  /** Which of these entries are marked stranded. */
  strandedAmong(ids: readonly string[]): Promise<string[]>;
  unmarkStranded(ids: readonly string[]): Promise<void>;
  /** Forgets consumers of earlier owners that hold nothing. */
  dropIdleConsumers(): Promise<void>;
  /** Counts one more takeover of each entry; the counts. */
  countClaims(ids: readonly string[]): Promise<Map<string, number>>;
  forgetClaims(ids: readonly string[]): Promise<void>;
  /** Drops what every reader is done with (never an entry unread or pending), with its marks and counts. */
  trim(): Promise<void>;
  /**
   * Acknowledges entries, sends replies, and writes dead letters (each with its entry's
   * acknowledgement, all or none); returns how many replies could not be delivered.
   */
  settle(ids: readonly string[], replies: readonly OutgoingReply[], dead: readonly PoisonMessage[]): Promise<number>;
}

/** The mailboxes of one actor type, as one worker (one consumer) reads them. */
export interface Mailbox {
  partition(p: number): PartitionMailbox;
  /**
   * One read over several partitions: cursor `'>'` for new entries (they become pending with
   * this consumer), or an id for this consumer's pending entries after it. Waits up to `blockMs`
   * for an entry only when every cursor is `'>'` and `blockMs` is given. Partitions with nothing
   * are absent from the answer.
   */
  read(
    cursors: ReadonlyArray<{ partition: number; cursor: string }>,
    count: number,
    blockMs: number | undefined,
  ): Promise<Map<number, RawEntry[]>>;
  /** Ends a waiting read at once (it answers what it has: usually nothing). */
  interrupt(): void;
  /** Acknowledges several partitions' entries (no dead letters) and sends their replies, at once. */
  settleMany(
    batches: ReadonlyArray<{ partition: number; ids: readonly string[]; replies: readonly OutgoingReply[] }>,
  ): Promise<number>;
  /** Connects what the reads need (idempotent; a failure is retried by the reads). */
  open(): Promise<void>;
  /** Ends any read and disconnects; idempotent. */
  close(): void;
}

/**
 * Which workers are alive and which partition each holds (store/redis/leases.ts keeps it in Redis,
 * memory-leases.ts in one process). A lease lapses unless renewed within its TTL; the fencing
 * epoch in the snapshot store, not the lease, is what stops a late owner's commit.
 */
export interface LeaseTable {
  /**
   * Records this worker as alive, overall and for each actor type it runs; returns, per type, the
   * live workers that run it (its own id included).
   */
  heartbeat(): Promise<Map<string, string[]>>;
  /** Leaves the membership (best effort: a worker that did not drops out one TTL later). */
  leave(): Promise<void>;
  /** True when this worker now holds the partition's lease (it was free). */
  acquire(type: string, partition: number): Promise<boolean>;
  /** True when this worker still held the lease and extended it. */
  renew(type: string, partition: number): Promise<boolean>;
  /** Frees the lease if this worker holds it. */
  release(type: string, partition: number): Promise<void>;
}

/** The outbox topic of messages from one actor to another (tell-effect.ts, outbox-relay.ts). */
export const TELL_TOPIC = 'tell';

/** The topic of an effect that is a ledger entry (ledger-effect.ts): written to ledger_entries, not the outbox. */
export const LEDGER_TOPIC = 'ledger';

/**
 * Who wrote a tell: its sender's type and key, the message and the effect index (unique per tell,
 * the same before and after its commit). A row of one tell has this identity; a batch's row
 * (store/tell-batch.ts) has one of its own, and each tell in it keeps this one.
 */
export interface TellSender {
  type: string;
  key: string;
  msgId: string;
  seq: number;
}

/** A tell waiting in the outbox: who wrote it, and what tellEffect() wrote. */
export interface OutboxTell {
  sender: TellSender;
  payload: unknown;
}

/**
 * The outbox's tells. The worker that committed them posts them at once and then `forget`s them;
 * `relay` is the way for the rest (a worker that died in between, a post that failed): it takes up
 * to `batch` outbox rows at least `minAgeMs` old that no other relay holds, oldest first, hands
 * their tells to `post` in order, and removes the rows only once `post` has resolved (in one
 * transaction: a failure or a crash leaves them for the next relay). Resolves with how many rows
 * it took. `forget` deletes rows by their identity (a row of one tell: its sender's).
 */
export interface TellOutbox {
  relay(batch: number, minAgeMs: number, post: (tells: readonly OutboxTell[]) => Promise<void>): Promise<number>;
  forget(sent: readonly TellSender[]): Promise<void>;
}
