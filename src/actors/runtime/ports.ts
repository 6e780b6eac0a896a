/**
 * What the actor runtime needs from the outside, as interfaces (ports): the store that keeps
 * actor state between rounds, and word of a store's outage. `src/store` implements them for
 * PostgreSQL; the runtime imports no adapter.
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
