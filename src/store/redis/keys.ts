/**
 * Every Redis key and stream name hearth uses, in one place (BullMQ's `QueueKeys` habit).
 *
 * Names are plain and readable so an operator can read a mailbox with redis-cli (a loop of
 * `XREAD COUNT 1 BLOCK 0 STREAMS hearth:{voucher:p3} <last id>` tails it: docs/operations.md).
 * Keys that a script or a transaction touches together share a Redis Cluster hash tag (the part
 * in braces), so they live in one slot: a partition's mailbox with its lease, takeover counts,
 * stranded marks and dead letters (`{voucher:p3}`); a chat session's event stream with its turn
 * keys (`{chat:s<shard>}:<id>`); a shard of the live USSD index with its summaries (`{ussd:s3}`); the membership sets
 * (`{workers}`). On a single Redis the braces are only characters of the name.
 */
import { fnv1a } from '../../actors/runtime/partitioning.js';

/** Chat shards (see `chatShardOf`): fixed, since a session's keys must keep their names. */
const CHAT_SHARDS = 16;

/** Shards of the live USSD index: fixed, since a session's shard must not change while it lives. */
const USSD_SHARDS = 16;

const part = /^[a-z][a-z0-9-]{0,31}$/;
const idPart = /^[A-Za-z0-9_.:-]{1,128}$/;

function checkType(type: string): string {
  if (!part.test(type)) throw new Error(`invalid actor type name: ${JSON.stringify(type)}`);
  return type;
}

function checkId(id: string): string {
  if (!idPart.test(id)) throw new Error(`invalid key part: ${JSON.stringify(id)}`);
  return id;
}

export interface Keys {
  readonly prefix: string;
  /** Mailbox stream of one partition: `hearth:{<type>:p<n>}`. */
  mailbox(type: string, partition: number): string;
  /** Lease of one partition: holds the owner's worker id, expires unless renewed. */
  lease(type: string, partition: number): string;
  /** Hash of takeover counts per pending entry of a partition (poison detection). */
  attempts(type: string, partition: number): string;
  /**
   * Set of the entries of a partition taken back from an owner paused past its lease, until
   * acknowledged: the mark must outlive a hand-over (see MailboxOps.claimStranded).
   */
  stranded(type: string, partition: number): string;
  /**
   * Dead-letter stream of one partition (`hearth:{<type>:p<n>}:dead`): messages set aside, each
   * written in one transaction with its entry's acknowledgement, so in the mailbox's slot.
   */
  deadLetter(type: string, partition: number): string;
  /**
   * Marks an outbox tell as posted to this partition's mailbox (`…:told:<outbox id>`, in the
   * mailbox's slot), for a few minutes: a relay that posts it again after a lost commit adds nothing.
   */
  told(type: string, partition: number, outboxId: string): string;
  /** The names a partition's keys had before they carried hash tags (adopted once, on a single Redis). */
  legacy(type: string, partition: number): { mailbox: string; attempts: string; stranded: string };
  /** Reply stream of one gateway process. */
  replies(gatewayId: string): string;
  /**
   * The chat shard of a session (of 16, by the session id's FNV-1a): its keys' hash tag, so a
   * gateway on a cluster reads all the sessions of one shard in one blocking read.
   */
  chatShardOf(sessionId: string): number;
  /** Event stream of one chat session (tokens, tool calls, socket events). */
  chatEvents(sessionId: string): string;
  /** The request id of a chat session's turn in flight (absent: none). */
  chatTurn(sessionId: string): string;
  /** The session stream's last id before a turn began (a resumed stream replays from there). */
  chatTurnStart(sessionId: string, requestId: string): string;
  /**
   * Sorted set of the clients reading a turn as it runs (an SSE stream, a request waiting for its
   * JSON answer), scored by when each lapses unless renewed (ms): while one reads, a new message
   * does not replace the turn.
   */
  chatTurnReaders(sessionId: string, requestId: string): string;
  /** Marks a request id as used by a turn of the session (an id names one turn only). */
  chatTurnIdUsed(sessionId: string, requestId: string): string;
  /**
   * Present while a turn waits for the client's answer to one call (browser tool, AG-UI
   * action), by the SHA-256 of its toolCallId: only such an answer is relayed, and only once.
   */
  chatAwaited(sessionId: string, toolCallDigest: string): string;
  /** Marks a supplier message signature as used (replay protection), by its SHA-256. */
  seenSignature(digest: string): string;
  /**
   * The shard of the live USSD index that holds a session (`ussdShards` of them, by the session
   * id's FNV-1a): every hop of every session writes the index, so no one key (nor one cluster
   * node) takes them all.
   */
  ussdShardOf(sessionId: string): number;
  readonly ussdShards: number;
  /** Sorted set of one shard's live USSD sessions, scored by their last activity (ms). */
  ussdLive(shard: number): string;
  /** Hash of one shard's live USSD session summaries, by session id. */
  ussdSummaries(shard: number): string;
  /** Requests of one phone in one minute (rate limit); the phone is given as a digest. */
  ussdRate(phoneDigest: string, minute: number): string;
  /** Unknown voucher codes a supplier's phone entered on one UTC day (its digest, as ussdRate). */
  ussdUnknownCodes(phoneDigest: string, day: number): string;
  /**
   * A request limit's state (GCRA: when its next request is due, ms), by kind (`key` an API key
   * id, `did` and `auth` digests of a DID and of a client address).
   */
  rateLimit(kind: 'key' | 'did' | 'auth', id: string): string;
  /** Sorted set of live workers, scored by their last heartbeat (Redis time, ms). */
  readonly workers: string;
  /**
   * Sorted set of the live workers that run one actor type (as `workers`): a type's partitions
   * are dealt over these only, so a worker built without a type never takes its partitions.
   */
  typeWorkers(type: string): string;
  /** Hash of deployment-wide facts every process must agree on (partition counts). */
  readonly meta: string;
  /** Consumer group that the owners of a type's partitions read with. */
  readonly group: string;
}

export function createKeys(prefix: string): Keys {
  checkId(prefix);
  const slot = (type: string, partition: number) => `${prefix}:{${checkType(type)}:p${partition}}`;
  const chatShardOf = (sessionId: string) => fnv1a(sessionId) % CHAT_SHARDS;
  const chat = (sessionId: string) => `${prefix}:{chat:s${chatShardOf(sessionId)}}:${checkId(sessionId)}`;
  return {
    prefix,
    mailbox: (type, partition) => slot(type, partition),
    lease: (type, partition) => `${slot(type, partition)}:lease`,
    deadLetter: (type, partition) => `${slot(type, partition)}:dead`,
    told: (type, partition, outboxId) => `${slot(type, partition)}:told:${checkId(outboxId)}`,
    attempts: (type, partition) => `${slot(type, partition)}:attempts`,
    stranded: (type, partition) => `${slot(type, partition)}:stranded`,
    legacy: (type, partition) => ({
      mailbox: `${prefix}:${checkType(type)}:p${partition}`,
      attempts: `${prefix}:attempts:${checkType(type)}:p${partition}`,
      stranded: `${prefix}:stranded:${checkType(type)}:p${partition}`,
    }),
    replies: (gatewayId) => `${prefix}:reply:${checkId(gatewayId)}`,
    chatShardOf,
    chatEvents: (sessionId) => `${chat(sessionId)}:events`,
    chatTurn: (sessionId) => `${chat(sessionId)}:turn`,
    chatTurnStart: (sessionId, requestId) => `${chat(sessionId)}:turn-start:${checkId(requestId)}`,
    chatTurnReaders: (sessionId, requestId) => `${chat(sessionId)}:turn-readers:${checkId(requestId)}`,
    chatTurnIdUsed: (sessionId, requestId) => `${chat(sessionId)}:turn-id:${checkId(requestId)}`,
    chatAwaited: (sessionId, digest) => `${chat(sessionId)}:awaited:${checkId(digest)}`,
    seenSignature: (digest) => `${prefix}:sig:${checkId(digest)}`,
    ussdShards: USSD_SHARDS,
    ussdShardOf: (sessionId) => fnv1a(sessionId) % USSD_SHARDS,
    ussdLive: (shard) => `${prefix}:{ussd:s${shard}}:live`,
    ussdSummaries: (shard) => `${prefix}:{ussd:s${shard}}:sessions`,
    ussdRate: (phoneDigest, minute) => `${prefix}:ussd:rate:${checkId(phoneDigest)}:${minute}`,
    ussdUnknownCodes: (phoneDigest, day) => `${prefix}:ussd:unknown-codes:${checkId(phoneDigest)}:${day}`,
    rateLimit: (kind, id) => `${prefix}:limit:${kind}:${checkId(id)}`,
    workers: `${prefix}:{workers}`,
    typeWorkers: (type) => `${prefix}:{workers}:${checkType(type)}:live`,
    meta: `${prefix}:meta`,
    group: 'owners',
  };
}

/**
 * The shard pub/sub channel that rings when a mailbox gets entries on a Redis Cluster
 * (`hearth:{voucher:p3}:bell`): in the mailbox's slot, so on its node, where its worker
 * listens (mailbox-bells.ts). An operator can watch one with `redis-cli -c SSUBSCRIBE <name>`.
 */
export function bellOf(mailbox: string): string {
  return `${mailbox}${BELL_SUFFIX}`;
}

/** The mailbox a bell rings for. */
export function mailboxOfBell(bell: string): string {
  return bell.endsWith(BELL_SUFFIX) ? bell.slice(0, -BELL_SUFFIX.length) : bell;
}

const BELL_SUFFIX = ':bell';
