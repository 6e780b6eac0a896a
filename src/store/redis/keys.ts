/**
 * The runtime's Redis keys and stream names, in one place (BullMQ's `QueueKeys` habit), and the one
 * validated helper (`productKey`) that each product's own key builders use beside the product
 * (`gateways/oracle/chat-keys.ts`, `gateways/ussd/ussd-keys.ts`, `gateways/auth/auth-keys.ts`).
 *
 * Names are plain and readable so an operator can read a mailbox with redis-cli (a loop of
 * `XREAD COUNT 1 BLOCK 0 STREAMS hearth:{voucher:p3} <last id>` tails it: docs/operations.md).
 * Keys that a script or a transaction touches together share a Redis Cluster hash tag (the part
 * in braces), so they live in one slot: a partition's mailbox with its lease, takeover counts,
 * stranded marks and dead letters (`{voucher:p3}`); a chat session's event stream with its turn
 * keys (`{chat:s<shard>}:<id>`); a shard of the live USSD index with its summaries (`{ussd:s3}`); the membership sets
 * (`{workers}`). On a single Redis the braces are only characters of the name.
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

/** Where a key builder takes the deployment's prefix from (a `Keys`, or any object with it). */
export interface KeyPrefix {
  readonly prefix: string;
}

/**
 * A product's key: `<prefix>:<product>:<part>:…`, or with a hash tag
 * `<prefix>:{<product>:<tag>}:<part>:…`. The keys one script touches together share a tag, so a
 * Redis Cluster keeps them in one slot. Every part is checked (letters, digits, `_ . : -`; 1-128).
 */
export function productKey(
  at: KeyPrefix,
  product: string,
  parts: ReadonlyArray<string | number>,
  tag?: string,
): string {
  const head =
    tag === undefined ? `${at.prefix}:${checkType(product)}` : `${at.prefix}:{${checkType(product)}:${checkId(tag)}}`;
  return [head, ...parts.map((p) => (typeof p === 'number' ? String(p) : checkId(p)))].join(':');
}

export interface Keys extends KeyPrefix {
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
   * Marks an outbox tell as posted to this partition's mailbox (`…:told:<id>`, the hash of the
   * tell's sender identity, in the mailbox's slot), for a few minutes: a relay that posts it again
   * after a lost commit adds nothing.
   */
  told(type: string, partition: number, outboxId: string): string;
  /** The names a partition's keys had before they carried hash tags (adopted once, on a single Redis). */
  legacy(type: string, partition: number): { mailbox: string; attempts: string; stranded: string };
  /** Reply stream of one gateway process. */
  replies(gatewayId: string): string;
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
