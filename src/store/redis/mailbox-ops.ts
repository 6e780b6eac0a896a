import type { RedisClient } from './redis.js';
import { encodeEntry } from '../../actors/runtime/entry-codec.js';
import type { OutgoingReply, PartitionMailbox, PoisonMessage } from '../../actors/runtime/ports.js';
import { ackAndReply } from './settle-script.js';

/** Where one partition's mailbox and its companions live in Redis. */
export interface MailboxPlace {
  partition: number;
  stream: string;
  group: string;
  consumer: string;
  /** The partition's set of stranded marks (see {@link MailboxOps.claimStranded}). */
  strandedKey: string;
  /** The partition's hash of takeover counts (see {@link MailboxOps.countClaims}). */
  attemptsKey: string;
  /** The partition's dead-letter stream. */
  deadStream: string;
  /** Its keys' names before they carried hash tags, adopted at the first {@link MailboxOps.ensureGroup}. */
  legacy?: { mailbox: string; attempts: string; stranded: string };
  /** Told of an old key left where it was because the new one exists already. */
  onLegacyLeft?: (from: string, to: string) => void;
}

/** One partition mailbox on a Redis stream: the Redis adapter of {@link PartitionMailbox}. */
export class MailboxOps implements PartitionMailbox {
  readonly partition: number;
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  private readonly strandedKey: string;
  private readonly attemptsKey: string;
  private readonly deadStream: string;
  private legacy: MailboxPlace['legacy'];
  private readonly onLegacyLeft: MailboxPlace['onLegacyLeft'];

  constructor(
    readonly redis: RedisClient,
    place: MailboxPlace,
  ) {
    ({
      partition: this.partition,
      stream: this.stream,
      group: this.group,
      consumer: this.consumer,
      strandedKey: this.strandedKey,
      attemptsKey: this.attemptsKey,
      deadStream: this.deadStream,
      legacy: this.legacy,
      onLegacyLeft: this.onLegacyLeft,
    } = place);
  }

  /** Creates the consumer group at the start of the stream, so entries sent before it exist are read. */
  async ensureGroup(): Promise<void> {
    if (this.legacy) await this.adoptLegacy(this.legacy);
    try {
      await this.redis.xgroup('CREATE', this.stream, this.group, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
    }
  }

  /**
   * A deployment upgraded from names without hash tags (one Redis) may hold entries, pending
   * ones included, under the old mailbox name: RENAMENX moves the stream with its group and
   * pending list, and the takeover counts and stranded marks with it, once. When the new
   * mailbox exists already (a gateway of the new version wrote first), the old one is left
   * and reported: its entries wait for an operator.
   */
  private async adoptLegacy(legacy: NonNullable<MailboxPlace['legacy']>): Promise<void> {
    const moves: Array<[string, string]> = [
      [legacy.mailbox, this.stream],
      [legacy.attempts, this.attemptsKey],
      [legacy.stranded, this.strandedKey],
    ];
    for (const [from, to] of moves) {
      try {
        if ((await this.redis.renamenx(from, to)) === 0) this.onLegacyLeft?.(from, to);
      } catch (err) {
        if (!(err instanceof Error && /no such key/i.test(err.message))) throw err;
      }
    }
    this.legacy = undefined;
  }

  /**
   * Moves every pending entry of the group (a previous owner's included) to this consumer.
   * JUSTID leaves the delivery counter alone: only the read that follows counts as a delivery.
   */
  async claimAll(): Promise<string[]> {
    let cursor = '0-0';
    const claimed: string[] = [];
    do {
      const res = (await this.redis.xautoclaim(
        this.stream,
        this.group,
        this.consumer,
        0,
        cursor,
        'COUNT',
        1000,
        'JUSTID',
      )) as [string, string[]];
      cursor = res[0];
      claimed.push(...res[1]);
    } while (cursor !== '0-0');
    return claimed;
  }

  /**
   * Moves to this consumer the entries other consumers have held unacknowledged for `minIdleMs`
   * or more (an earlier owner's stranded reads); returns their ids.
   */
  async claimStranded(minIdleMs: number): Promise<string[]> {
    const summary = (await this.redis.xpending(this.stream, this.group)) as [
      number,
      unknown,
      unknown,
      Array<[string, string]> | null,
    ];
    const others = (summary[3] ?? []).filter(([name]) => name !== this.consumer);
    if (others.length === 0) return [];
    const taken: string[] = [];
    for (const [name] of others) {
      const rows = (await this.redis.call(
        'XPENDING',
        this.stream,
        this.group,
        'IDLE',
        minIdleMs,
        '-',
        '+',
        1000,
        name,
      )) as Array<[string]>;
      const ids = rows.map(([id]) => id);
      if (ids.length === 0) continue;
      // Marked before they are claimed, and in Redis: if this worker loses the partition before
      // it applies them, the next owner claims them with the rest and must still know them for
      // stranded (overtaken, one is set aside; unmarked, it would pass for a redelivery and be
      // acknowledged unapplied). A mark on an entry XCLAIM then leaves is harmless: that entry
      // is held by an owner whose commits are fenced, so it is stranded all the same.
      await this.redis.sadd(this.strandedKey, ...ids);
      // XCLAIM re-checks the idle time, so an entry its holder has just acknowledged or touched stays.
      const claimed = (await this.redis.xclaim(
        this.stream,
        this.group,
        this.consumer,
        minIdleMs,
        ...ids,
        'JUSTID',
      )) as string[];
      taken.push(...claimed);
    }
    return taken;
  }

  /** Which of these entries were marked stranded by an earlier owner (see {@link claimStranded}). */
  async strandedAmong(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const flags = await this.redis.smismember(this.strandedKey, ...ids);
    return ids.filter((_, i) => flags[i] === 1);
  }

  /** Drops the marks of acknowledged entries. */
  async unmarkStranded(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.srem(this.strandedKey, ...ids);
  }

  /** Forgets consumers of earlier owners that no longer hold anything. */
  async dropIdleConsumers(): Promise<void> {
    const consumers = (await this.redis.xinfo('CONSUMERS', this.stream, this.group)) as unknown[][];
    for (const c of consumers) {
      const info = fieldMap(c);
      if (info.get('name') !== this.consumer && Number(info.get('pending')) === 0) {
        await this.redis.xgroup('DELCONSUMER', this.stream, this.group, String(info.get('name')));
      }
    }
  }

  /**
   * Counts one more takeover for each claimed entry (a hash per partition) and returns the
   * counts. An entry that keeps being claimed keeps killing its owners: it is poison. (Redis's
   * own delivery counter also grows with every retry after an outage, so it cannot tell.)
   */
  async countClaims(ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const counts = await Promise.all(ids.map((id) => this.redis.hincrby(this.attemptsKey, id, 1)));
    return new Map(ids.map((id, i) => [id, counts[i] ?? 0]));
  }

  async forgetClaims(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.hdel(this.attemptsKey, ...ids);
  }

  /**
   * Acknowledges a batch, sends its replies and dead letters, on an auto-pipelined connection:
   * the settles of every partition finishing in the same tick leave in one write. Returns how
   * many replies Redis refused (see {@link ackAndReply}).
   */
  async settle(
    ids: readonly string[],
    replies: readonly OutgoingReply[],
    dead: readonly PoisonMessage[],
  ): Promise<number> {
    if (dead.length === 0) return ackAndReply(this.redis, this.group, [{ stream: this.stream, ids }], replies);
    // A dead letter and the acknowledgement of its entry go together or not at all.
    const tx = this.redis.multi();
    for (const d of dead) tx.xadd(this.deadStream, '*', ...deadLetterFields(d, this.stream, this.consumer));
    // XACK with no id is a syntax error, which would abort the whole MULTI.
    if (ids.length > 0) tx.xack(this.stream, this.group, ...ids);
    const [, refused] = await Promise.all([
      tx.exec().then(failOnError),
      ackAndReply(this.redis, this.group, [], replies),
    ]);
    return refused;
  }

  /**
   * Trims entries that every reader is done with: below both the oldest pending entry and the
   * last one delivered to the group, so nothing unread or unacknowledged is ever dropped. The
   * stranded marks and takeover counts of entries below that bound go too: they only matter
   * while their entry is pending, and a path that settles an entry without dropping them (or an
   * XCLAIM that found the entry acknowledged) would otherwise leave them for ever.
   */
  async trim(): Promise<void> {
    await this.redis.eval(trimScript, 3, this.stream, this.strandedKey, this.attemptsKey, this.group);
  }
}

// One script, so no read can slip between looking at the group and trimming the stream.
// KEYS: the mailbox, its stranded marks (set), its takeover counts (hash); ARGV: the group.
const trimScript = `
local pending = redis.call('XPENDING', KEYS[1], ARGV[1])
local minid = pending[2]
if not minid then
  local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
  for _, g in ipairs(groups) do
    local info = {}
    for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
    if info['name'] == ARGV[1] then
      local ms, seq = string.match(info['last-delivered-id'], '^(%d+)-(%d+)$')
      minid = ms .. '-' .. tostring(tonumber(seq) + 1)
    end
  end
end
if not minid then return 0 end
local bms, bseq = string.match(minid, '^(%d+)-(%d+)$')
bms, bseq = tonumber(bms), tonumber(bseq)
local function settled(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if not ms then return false end
  ms, seq = tonumber(ms), tonumber(seq)
  return ms < bms or (ms == bms and seq < bseq)
end
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if settled(id) then redis.call('SREM', KEYS[2], id) end
end
for _, id in ipairs(redis.call('HKEYS', KEYS[3])) do
  if settled(id) then redis.call('HDEL', KEYS[3], id) end
end
return redis.call('XTRIM', KEYS[1], 'MINID', '~', minid)`;

function failOnError(results: Array<[Error | null, unknown]> | null): void {
  const failed = results?.find(([err]) => err);
  if (failed?.[0]) throw failed[0];
}

function deadLetterFields(d: PoisonMessage, stream: string, worker: string): string[] {
  const { id, ...entry } = d.entry;
  return ['stream', stream, 'id', id, ...encodeEntry(entry), 'error', d.error, 'worker', worker];
}

function fieldMap(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(String(flat[i]), flat[i + 1]);
  return m;
}
