import type { z } from 'zod';
import type { ErrorCode } from '../../errors/index.js';

/** What `decide` may read besides state and message: the clock and deterministic ids. */
export interface ActorContext {
  readonly type: string;
  readonly key: string;
  /** Stream id of the message being applied. */
  readonly msgId: string;
  /** Processing time (injected; tests drive it). */
  readonly now: Date;
  /**
   * An id derived from the message id and `n`: the same message applied twice (after a crash
   * before commit) yields the same ids, so replies and ledger entries stay stable.
   */
  id(n?: number): string;
  /**
   * A fact of this actor (see {@link FactsPolicy}), if it has one: only the ids its definition's
   * `facts.needs` named for this message are loaded; any other id reads as absent. Facts written
   * by earlier messages of the same batch are seen.
   */
  fact(id: string): unknown;
  /**
   * This actor's tallies (see {@link TallyWrite}), by name, as decimal strings: what other actors'
   * commits added to it, summed. Loaded for every message of a type with `tallied` set; empty
   * for any other type.
   */
  tallies(): Readonly<Record<string, string>>;
}

export interface ActorRejection {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** A side effect that must not be lost: written to the outbox in the same commit as the state. */
export interface OutboxEffect {
  topic: string;
  payload: unknown;
}

/** An append-only record (a redemption, say), stored beside the snapshot in the same commit. */
interface RecordEffect {
  kind: string;
  id: string;
  body: unknown;
}

export interface Decision<S> {
  /** The next state; `undefined` leaves the actor without state (nothing is written). */
  state: S | undefined;
  /** Reply to an `ask()`; ignored for `tell()`. */
  reply?: unknown;
  /** Set instead of `reply` when the message is refused; the state should then be unchanged. */
  rejection?: ActorRejection;
  effects?: OutboxEffect[];
  records?: RecordEffect[];
  /** Facts to write (`body` null deletes one), in the same commit as the state. */
  facts?: FactWrite[];
  /** Amounts added to other actors' tallies, in the same commit as the state. */
  tallies?: TallyWrite[];
}

/** A fact an actor writes beside its snapshot; `body` null deletes it. */
export interface FactWrite {
  id: string;
  body: unknown;
}

/**
 * An amount added to a counter of another actor, in the writer's commit, without a message to
 * it: a redemption's pending CARBON on its supplier's account, say, which every redemption adds
 * to and no redemption waits for. The counter is kept as one row per writing partition (a hot
 * supplier's credits never queue on one row lock), summed when the actor reads it
 * ({@link ActorContext.tallies}), so a tally costs the same on day 300 as on day 1. The owner's
 * type must set `tallied`.
 */
export interface TallyWrite {
  type: string;
  key: string;
  name: string;
  /** An integer, as a decimal string (micro-units: may exceed 2^53). */
  by: string;
}

/**
 * What an actor keeps beside its snapshot, looked up by id: whatever grows with its history
 * (applied step ids, pending credits, remembered outcomes, ITMO claims). A snapshot then holds
 * totals and bounded windows only, and a message costs the same on day 300 as on day 1: the
 * runtime loads, before `decide`, just the facts each message names (one indexed query a round),
 * and writes the facts a decision returns in the same commit as its snapshot. Only for
 * commit-before-reply types (a round's facts are committed before the next round loads any).
 * Facts outlive an idle actor's retirement: a step applied before it stays applied.
 * A record the actor wrote is read as a fact too, by {@link recordFact}: what a record already
 * holds needs no fact of its own.
 */
interface FactsPolicy<M> {
  /** The fact ids `decide` may read for this message (a handful: each is a primary-key probe). */
  needs(msg: M, key: string): readonly string[];
}

const RECORD_FACT = 'record:';

/** The fact id under which `ctx.fact` reads this actor's record of a kind and id (its body). */
export const recordFact = (kind: string, id: string): string => `${RECORD_FACT}${kind}:${id}`;

/** The kind and id of a record read as a fact, or undefined for a fact id of another form. */
export function recordOfFact(factId: string): { kind: string; id: string } | undefined {
  if (!factId.startsWith(RECORD_FACT)) return undefined;
  const rest = factId.slice(RECORD_FACT.length);
  const colon = rest.indexOf(':');
  return colon <= 0 ? undefined : { kind: rest.slice(0, colon), id: rest.slice(colon + 1) };
}

/**
 * How a type's snapshots reach Postgres.
 * - `commit-before-reply`: money-like actors; the reply leaves only after the batch commit.
 * - `write-behind`: short-lived actors; replies leave at once, the batch is committed (and the
 *   messages acknowledged) at most every `flushMs`, so a crash replays at most that window.
 */
export type PersistencePolicy = { mode: 'commit-before-reply' } | { mode: 'write-behind'; flushMs: number };

/**
 * A product's read model: one row per actor in the product's own table (primary key `key`),
 * written in the same commit as the snapshot, so reads never depend on the snapshot's shape.
 */
export interface ReadModel<S> {
  /** The table: lower-case letters, digits and underscores. */
  readonly table: string;
  /** Its other columns, by name (the same for every row). */
  readonly columns: readonly string[];
  /** The row's values for a state, by column; undefined: the actor has no row (any is deleted). */
  row(state: S): Record<string, unknown> | undefined;
}

/**
 * Actors of a type that are retired when idle: the partition's owner deletes a snapshot (and
 * its read model row) not written for `idleMs`, through its fence, so a retirement never races
 * the owner's commits. A message to a retired actor finds no state, as a new one would.
 */
interface RetentionPolicy {
  readonly idleMs: number;
}

export interface ActorDefinition<S = unknown, M extends { kind: string } = { kind: string }> {
  readonly type: string;
  /** The zod union of the messages this actor accepts; checked again on the worker side. */
  readonly messages: z.ZodType<M>;
  /** Pure: no I/O, no clock but `ctx.now`, no randomness but `ctx.id()`. */
  decide(state: S | undefined, msg: M, ctx: ActorContext): Decision<S>;
  readonly persistence: PersistencePolicy;
  /** Partitions of this type; default ACTOR_PARTITIONS. */
  readonly partitions?: number;
  readonly view?: ReadModel<S>;
  readonly retention?: RetentionPolicy;
  readonly facts?: FactsPolicy<M>;
  /** Other actors add to this type's tallies (Decision.tallies): each round loads its keys' sums. */
  readonly tallied?: boolean;
}

export function reject(code: ErrorCode, message: string, details?: unknown): ActorRejection {
  return details === undefined ? { code, message } : { code, message, details };
}
