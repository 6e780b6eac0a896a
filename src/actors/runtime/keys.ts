/**
 * Every Redis key and stream name hearth uses, in one place (BullMQ's `QueueKeys` habit).
 *
 * Names are plain and readable so an operator can read a mailbox with redis-cli (a loop of
 * `XREAD COUNT 1 BLOCK 0 STREAMS hearth:voucher:p3 <last id>` tails it: docs/operations.md).
 * They carry no Redis Cluster hash tags on purpose: the mailbox names are part of the operator
 * contract (docs/architecture.md). A worker reads all its partitions of a type in one
 * multi-stream XREADGROUP, so Redis Cluster is not supported as things stand (docs/decisions.md).
 */
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
  /** Mailbox stream of one partition: `hearth:<type>:p<n>`. */
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
  /** Dead-letter stream of a type: poison messages after MAX_DELIVERIES attempts. */
  deadLetter(type: string): string;
  /** Reply stream of one gateway process. */
  replies(gatewayId: string): string;
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
  /** Sorted set of live USSD sessions, scored by their last activity (ms). */
  ussdLive(): string;
  /** Hash of live USSD session summaries, by session id. */
  ussdSummaries(): string;
  /** Requests of one phone in one minute (rate limit); the phone is given as a digest. */
  ussdRate(phoneDigest: string, minute: number): string;
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
  return {
    prefix,
    mailbox: (type, partition) => `${prefix}:${checkType(type)}:p${partition}`,
    lease: (type, partition) => `${prefix}:lease:${checkType(type)}:p${partition}`,
    deadLetter: (type) => `${prefix}:dead:${checkType(type)}`,
    attempts: (type, partition) => `${prefix}:attempts:${checkType(type)}:p${partition}`,
    stranded: (type, partition) => `${prefix}:stranded:${checkType(type)}:p${partition}`,
    replies: (gatewayId) => `${prefix}:reply:${checkId(gatewayId)}`,
    chatEvents: (sessionId) => `${prefix}:events:chat:${checkId(sessionId)}`,
    chatTurn: (sessionId) => `${prefix}:chat:turn:${checkId(sessionId)}`,
    chatTurnStart: (sessionId, requestId) => `${prefix}:chat:turn-start:${checkId(sessionId)}:${checkId(requestId)}`,
    chatTurnReaders: (sessionId, requestId) =>
      `${prefix}:chat:turn-readers:${checkId(sessionId)}:${checkId(requestId)}`,
    chatTurnIdUsed: (sessionId, requestId) => `${prefix}:chat:turn-id:${checkId(sessionId)}:${checkId(requestId)}`,
    chatAwaited: (sessionId, digest) => `${prefix}:chat:awaited:${checkId(sessionId)}:${checkId(digest)}`,
    seenSignature: (digest) => `${prefix}:sig:${checkId(digest)}`,
    ussdLive: () => `${prefix}:ussd:live`,
    ussdSummaries: () => `${prefix}:ussd:sessions`,
    ussdRate: (phoneDigest, minute) => `${prefix}:ussd:rate:${checkId(phoneDigest)}:${minute}`,
    rateLimit: (kind, id) => `${prefix}:limit:${kind}:${checkId(id)}`,
    workers: `${prefix}:workers`,
    // Four parts, so no type's mailbox (`<prefix>:<type>:p<n>`) can ever share the name.
    typeWorkers: (type) => `${prefix}:workers:${checkType(type)}:live`,
    meta: `${prefix}:meta`,
    group: 'owners',
  };
}

/** FNV-1a, 32 bit: stable across processes and versions, which `partitionOf` needs. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The partition that owns a key. P must not change while a deployment has data. */
export function partitionOf(key: string, partitions: number): number {
  return fnv1a(key) % partitions;
}
