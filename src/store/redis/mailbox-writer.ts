import type { Cluster } from 'ioredis';
import { ringCommand, sendPerNode } from './node-batch.js';
import { isCluster, type RedisClient } from './redis.js';

/**
 * Adds several entries to mailboxes in one script call. KEYS: the mailboxes. ARGV[1]: the number
 * of fields f per entry; ARGV[2..f+1]: their names; then, per entry, the index of its mailbox in
 * KEYS and its f values. Returns each entry's id in order, or the error Redis gave that one
 * (`pcall`: a key of another type in a mailbox's place fails its own entries, not the others).
 */
const POST_MANY = `
local f = tonumber(ARGV[1])
local ids = {}
local fields = {}
local at = f + 2
while at <= #ARGV do
  for j = 1, f do
    fields[2 * j - 1] = ARGV[1 + j]
    fields[2 * j] = ARGV[at + j]
  end
  ids[#ids + 1] = redis.pcall('XADD', KEYS[tonumber(ARGV[at])], '*', unpack(fields))
  at = at + f + 1
end
return ids`;

/**
 * Entries per script call at most: Redis runs a script alone, so a turn of 10,000 writes goes as
 * calls that other clients' commands can come between (and whose arguments stay small).
 */
const MAX_PER_CALL = 256;

interface Pending {
  stream: string;
  /** Field names and values, alternating (`encodeEntry`). */
  fields: string[];
  resolve: (id: string) => void;
  reject: (err: unknown) => void;
}

/**
 * A gateway's mailbox writes, gathered per event-loop turn and sent as one script call, turn after
 * turn in order: one key's messages land in the order they were written. The askers a round of
 * replies has just answered ask again in the same turn, 64 of them at 64 askers. Sent as one
 * command each, ioredis was 44% of the gateway's CPU (perf), most of it per command: its command
 * object, the auto-pipeline's promise and callback, the reply's decoding. As one call, the
 * gateway's CPU per echo ask went from 12–13 to 8–10 µs. The entries are the same, each its own
 * XADD.
 *
 * The worker's blocking read, woken after the whole script, gets the entries of one mailbox only
 * (Redis 7.0 serves a read blocked on several streams with the first that became ready): it reads
 * the rest at once (see read-top-up.ts).
 */
export class MailboxWriter {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Cluster bells to ring this turn, with the newest id each was rung for. */
  private readonly rings = new Map<string, string | undefined>();
  private ringsScheduled = false;

  constructor(private readonly redis: RedisClient) {}

  /** Adds an entry to `stream` with the writes of this turn; resolves with its id. */
  write(stream: string, fields: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending.push({ stream, fields, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // The turn's check phase, as ioredis's auto-pipelining: every write of this turn's I/O.
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    if (isCluster(this.redis)) {
      this.flushPerEntry(this.redis, all);
      return;
    }
    // EVAL, never EVALSHA with EVAL after NOSCRIPT: that retry would leave after writes of later
    // turns had gone (a Redis restart forgets scripts), and one key's messages would land out of
    // order. Redis hashes the script's few hundred bytes and finds it in its cache. Every write
    // takes this one path, a lone one too: as a plain XADD it went through ioredis's
    // auto-pipeline, which scripts skip (redis.ts), so a later turn's call could overtake it.
    for (let i = 0; i < all.length; i += MAX_PER_CALL) {
      const batch = all.slice(i, i + MAX_PER_CALL);
      settleWrites(batch, this.postMany(batch));
    }
  }

  private async postMany(batch: readonly Pending[]): Promise<unknown[]> {
    const [keys, ...args] = postManyArgs(batch);
    return (await this.redis.eval(POST_MANY, keys!, ...args)) as unknown[];
  }

  /**
   * On a cluster a script's keys must share a slot: each entry is a plain XADD instead, the
   * turn's in one write per node (node-batch.ts), each node's in the order the turn made them,
   * and each key's in order across a slot's move. Redis runs an XADD in 0.6 µs and the script in
   * 2–5 µs an entry (a call per mailbox held 3 entries at 64 echo askers: 23 µs a call, the
   * largest share of Redis's CPU per ask on a cluster).
   *
   * A mailbox's bell (keys.ts `bellOf`; what wakes its worker, mailbox-bells.ts) rings once its
   * newest entry of the turn is answered, with that entry's id, not in the same write: a worker
   * woken by the first node's bell read every node at once, before the other nodes had run the
   * turn's entries (a node serves its clients' commands in no set order), and its rounds held
   * one node's share of the turn (18, 27 or 45 of 64 echo asks, against 64 on one Redis).
   */
  private flushPerEntry(cluster: Cluster, all: readonly Pending[]): void {
    const answers = sendPerNode(
      cluster,
      all.map((w) => ({ key: w.stream, name: 'xadd', args: [w.stream, '*', ...w.fields] })),
    );
    const newest = new Map<string, Promise<unknown>>();
    all.forEach((w, i) => {
      const answer = answers[i]!;
      newest.set(w.stream, answer);
      answer.then((id) => {
        if (typeof id === 'string') w.resolve(id);
        else w.reject(new Error('no id for a mailbox write'));
      }, w.reject);
    });
    // One key's commands are answered in order: its newest entry's answer comes last.
    for (const [stream, answer] of newest)
      answer.then(
        (id) => this.ring(cluster, stream, typeof id === 'string' ? id : undefined),
        () => this.ring(cluster, stream, undefined), // earlier entries of the turn may be in
      );
  }

  /** Rings a bell with the others answered in the same turn, in one call. */
  private ring(cluster: Cluster, stream: string, newest: string | undefined): void {
    // Answers for one stream come in order, so a later id is newer; an unknown one stays unknown
    // (the worker then reads whatever it has seen).
    const unknown = this.rings.has(stream) && this.rings.get(stream) === undefined;
    this.rings.set(stream, unknown ? undefined : newest);
    if (this.ringsScheduled) return;
    this.ringsScheduled = true;
    setImmediate(() => {
      this.ringsScheduled = false;
      const rings = [...this.rings];
      this.rings.clear();
      // A bell not rung delays the entries' round by the worker's block time at most: not an error.
      for (const rung of sendPerNode(
        cluster,
        rings.map(([s, id]) => ringCommand(s, id)),
      ))
        rung.catch(() => undefined);
    });
  }
}

/** POST_MANY's KEYS count, KEYS and ARGV for a batch of entries. */
function postManyArgs(batch: readonly Pending[]): string[] {
  const streams = new Map<string, number>();
  for (const w of batch) if (!streams.has(w.stream)) streams.set(w.stream, streams.size + 1);
  const names = batch[0]!.fields.filter((_, i) => i % 2 === 0);
  const args: string[] = [String(streams.size), ...streams.keys(), String(names.length), ...names];
  for (const w of batch) {
    if (w.fields.length !== names.length * 2) throw new Error('mailbox entries of one call must share their fields');
    args.push(String(streams.get(w.stream)));
    for (let i = 0; i < w.fields.length; i += 2) {
      if (w.fields[i] !== names[i / 2]) throw new Error('mailbox entries of one call must share their fields');
      args.push(w.fields[i + 1]!);
    }
  }
  return args;
}

/** Each write gets its id, or the error Redis gave it, or the call's. */
function settleWrites(batch: readonly Pending[], ids: Promise<unknown[]>): void {
  ids.then(
    (answers) =>
      batch.forEach((w, i) => {
        const id = answers[i];
        if (typeof id === 'string') w.resolve(id);
        else w.reject(id instanceof Error ? id : new Error('no id for a mailbox write'));
      }),
    (err: unknown) => {
      for (const w of batch) w.reject(err);
    },
  );
}
