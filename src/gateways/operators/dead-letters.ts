import { bellOf, type Keys } from '../../store/redis/keys.js';
import type { RedisClient } from '../../store/redis/redis.js';
import { encodeEntry } from '../../actors/runtime/entry-codec.js';
import { redactedBody } from './redact.js';

/** A dead letter as an operator sees it: where it came from, why it failed, what it said. */
export interface DeadLetter {
  type: string;
  partition: number;
  /** Its id in the partition's dead-letter stream. */
  id: string;
  /** When it was dead-lettered (from its id). */
  at: string;
  /** The mailbox it was taken from, and its id there. */
  stream: string;
  entryId: string;
  key: string;
  kind: string;
  error: string;
  worker: string;
  /** The message body, JSON, with every field that may hold a secret redacted. */
  body: unknown;
}

/**
 * Deletes the dead letter and, only if it was there, posts its entry to the mailbox and rings
 * the mailbox's bell with the new entry's id (what wakes its worker on a Redis Cluster,
 * mailbox-bells.ts): a replay that comes twice (two operators, a retried request) posts once.
 * KEYS: the dead-letter stream, the mailbox and its bell (one slot: the partition's hash tag; a
 * Redis before 7.0, without shard channels, only skips the ring). ARGV: the dead letter's id,
 * the fields.
 */
const REPLAY = `if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
local id = redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
redis.pcall('SPUBLISH', KEYS[3], id)
return id`;

function fieldsOf(flat: string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(flat[i]!, flat[i + 1]!);
  return m;
}

/**
 * The dead letters of every actor type's partitions, in Redis (`<slot>:dead`, written by the
 * worker with the entry's acknowledgement: mailbox-ops.ts), for the operators' API: list,
 * inspect, replay to the mailbox, discard. A replay posts the entry again as a new message of
 * its key (no asker waits for it: `reply` is empty) and deletes the dead letter, in one
 * script on the partition's slot, so a replay done twice posts once.
 */
export class DeadLetters {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    /** The actor types and their partition counts. */
    private readonly types: ReadonlyArray<{ type: string; partitions: number }>,
  ) {}

  partitionsOf(type: string): number | undefined {
    return this.types.find((t) => t.type === type)?.partitions;
  }

  /** The newest first, at most `limit`, of one type (or all); how many there are in all. */
  async list(type: string | undefined, limit: number): Promise<{ items: DeadLetter[]; total: number }> {
    const streams = this.types
      .filter((t) => type === undefined || t.type === type)
      .flatMap((t) => Array.from({ length: t.partitions }, (_, p) => ({ type: t.type, partition: p })));
    const counts = await Promise.all(streams.map((s) => this.redis.xlen(this.keys.deadLetter(s.type, s.partition))));
    const pages = await Promise.all(
      streams.map(async (s, i): Promise<DeadLetter[]> => {
        if (counts[i] === 0) return [];
        const page = await this.redis.xrevrange(this.keys.deadLetter(s.type, s.partition), '+', '-', 'COUNT', limit);
        return page.map(([id, fields]) => this.view(s.type, s.partition, id, fields));
      }),
    );
    const items = pages
      .flat()
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, limit);
    return { items, total: counts.reduce((a, b) => a + b, 0) };
  }

  async get(type: string, partition: number, id: string): Promise<DeadLetter | undefined> {
    const [found] = await this.redis.xrange(this.keys.deadLetter(type, partition), id, id);
    return found ? this.view(type, partition, found[0], found[1]) : undefined;
  }

  /** Posts the entry again to its mailbox and removes the dead letter; the new message id, or undefined when gone. */
  async replay(type: string, partition: number, id: string): Promise<string | undefined> {
    const dead = this.keys.deadLetter(type, partition);
    const [found] = await this.redis.xrange(dead, id, id);
    if (!found) return undefined;
    const f = fieldsOf(found[1]);
    const mailbox = this.keys.mailbox(type, partition);
    const fields = encodeEntry({
      key: f.get('key') ?? '',
      kind: f.get('kind') ?? '',
      body: f.get('body') ?? '',
      reply: '',
      corr: '',
      ts: Date.now(),
    });
    const added = (await this.redis.eval(REPLAY, 3, dead, mailbox, bellOf(mailbox), id, ...fields)) as string | null;
    return added ?? undefined;
  }

  /** Removes the dead letter; whether it was there. */
  async discard(type: string, partition: number, id: string): Promise<boolean> {
    return (await this.redis.xdel(this.keys.deadLetter(type, partition), id)) === 1;
  }

  private view(type: string, partition: number, id: string, flat: string[]): DeadLetter {
    const f = fieldsOf(flat);
    const body = redactedBody(f.get('body') ?? '');
    return {
      type,
      partition,
      id,
      at: new Date(Number(id.split('-')[0])).toISOString(),
      stream: f.get('stream') ?? '',
      entryId: f.get('id') ?? '',
      key: f.get('key') ?? '',
      kind: f.get('kind') ?? '',
      error: f.get('error') ?? '',
      worker: f.get('worker') ?? '',
      body,
    };
  }
}
