import type { OutboxRow, RecordRow, Slot } from '../actors/runtime/apply-batch.js';
import type { Sql } from './db.js';

/** A commit by a worker that no longer owns the partition (its epoch is not the current one). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

export interface BatchCommit {
  type: string;
  partition: number;
  epoch: number;
  dirty: ReadonlyMap<string, Slot>;
  outbox: readonly OutboxRow[];
  /** Append-only records (absent: none). */
  records?: readonly RecordRow[];
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
}

export const fenceKey = (type: string, partition: number): string => `${type}/${partition}`;

interface SnapshotRow {
  key: string;
  version: string;
  state: unknown;
  last_msg_id: string;
}

export function createPgSnapshotStore(sql: Sql): SnapshotStore {
  return {
    async load(type, keys) {
      const slots = new Map<string, Slot>();
      if (keys.length === 0) return slots;
      // One primary-key probe per key. Written as `key = ANY($keys)`, the planner, when its row
      // estimate for the type was stale, scanned every row of the type and filtered them (4 ms
      // for 200 keys among 10,000 USSD sessions, measured), and that happened after any burst
      // of new keys: the very moment the loads come.
      const rows = await sql<SnapshotRow[]>`
        SELECT s.key, s.version, s.state, s.last_msg_id
        FROM unnest(${sql.array(keys as string[])}::text[]) AS k(key)
        JOIN actor_snapshots s ON s.type = ${type} AND s.key = k.key`;
      for (const row of rows) {
        slots.set(row.key, {
          state: row.state === null ? undefined : row.state,
          version: Number(row.version),
          lastMsgId: row.last_msg_id,
        });
      }
      return slots;
    },

    async takeFence(type, partition, owner) {
      // The row lock of this upsert waits for the old owner's in-flight commits (FOR SHARE),
      // and every commit after it sees the new epoch.
      const [row] = await sql<{ epoch: string }[]>`
        INSERT INTO partition_fences (type, partition, epoch, owner)
        VALUES (${type}, ${partition}, 1, ${owner})
        ON CONFLICT (type, partition)
        DO UPDATE SET epoch = partition_fences.epoch + 1, owner = EXCLUDED.owner, updated_at = now()
        RETURNING epoch`;
      return Number(row?.epoch);
    },

    async commit(batch) {
      const held = await this.commitMany([batch]);
      if (!held.has(fenceKey(batch.type, batch.partition))) {
        throw new FencedError(`partition ${batch.type}/${batch.partition} is no longer fenced at epoch ${batch.epoch}`);
      }
    },

    async commitMany(batches) {
      // Batches with nothing to write are fence-checked too: their acknowledgements and
      // rejections were computed from state only the current owner may trust.
      const live = batches;
      const held = new Set<string>();
      if (live.length === 0) return held;
      const snaps = live.flatMap((b) => [...b.dirty].map(([key, slot]) => ({ b, key, slot })));
      const rows = live.flatMap((b) => b.outbox.map((o) => ({ b, o })));
      const recs = live.flatMap((b) => (b.records ?? []).map((r) => ({ b, r })));
      const states = storable(() => JSON.stringify(snaps.map((x) => x.slot.state ?? null)));
      const payloads = storable(() => rows.map((r) => JSON.stringify(r.o.payload ?? null)));
      const bodies = storable(() => recs.map((x) => JSON.stringify(x.r.body ?? null)));
      // The states travel as one JSON array (parsed once by PostgreSQL), not a text[] of JSON
      // documents, which the driver escapes element by element (~4% of a USSD worker's time).
      // One statement, so one round trip and an implicit transaction. Each batch's fence row is
      // read FOR SHARE (a new owner's takeFence waits for it) and only batches whose epoch still
      // holds are written. A snapshot that does not advance aborts the whole statement.
      const [result] = await sql<{ held: Array<{ type: string; partition: number }> | null }[]>`
        WITH batch AS (
          SELECT * FROM unnest(${sql.array(live.map((b) => b.type))}::text[], ${sql.array(live.map((b) => b.partition))}::int[],
                               ${sql.array(live.map((b) => b.epoch))}::bigint[]) AS b(type, partition, epoch)
        ), fence AS (
          SELECT f.type, f.partition, f.epoch FROM partition_fences f
          JOIN batch b ON b.type = f.type AND b.partition = f.partition AND b.epoch = f.epoch
          FOR SHARE OF f
        ), input AS (
          SELECT t.type, t.partition, t.k, t.v, t.m, j.s
          FROM unnest(${sql.array(snaps.map((x) => x.b.type))}::text[], ${sql.array(snaps.map((x) => x.b.partition))}::int[],
                      ${sql.array(snaps.map((x) => x.key))}::text[], ${sql.array(snaps.map((x) => x.slot.version))}::bigint[],
                      ${sql.array(snaps.map((x) => x.slot.lastMsgId))}::text[]) WITH ORDINALITY AS t(type, partition, k, v, m, n)
          JOIN jsonb_array_elements(${states}::text::jsonb) WITH ORDINALITY AS j(s, n)
            ON j.n = t.n
          JOIN fence f ON f.type = t.type AND f.partition = t.partition
        ), snap AS (
          INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
          SELECT i.type, i.k, i.v, i.s, i.m, f.epoch FROM input i
          JOIN fence f ON f.type = i.type AND f.partition = i.partition
          ON CONFLICT (type, key) DO UPDATE
            SET version = EXCLUDED.version, state = EXCLUDED.state, last_msg_id = EXCLUDED.last_msg_id,
                epoch = EXCLUDED.epoch, updated_at = now()
            WHERE actor_snapshots.epoch <= EXCLUDED.epoch AND actor_snapshots.version < EXCLUDED.version
          RETURNING 1
        ), ob AS (
          INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
          SELECT x.t, x.type, x.k, x.m, x.q, x.p::jsonb
          FROM unnest(${sql.array(rows.map((r) => r.b.type))}::text[], ${sql.array(rows.map((r) => r.b.partition))}::int[],
                      ${sql.array(rows.map((r) => r.o.topic))}::text[], ${sql.array(rows.map((r) => r.o.key))}::text[],
                      ${sql.array(rows.map((r) => r.o.msgId))}::text[], ${sql.array(rows.map((r) => r.o.seq))}::int[],
                      ${sql.array(payloads)}::text[]) AS x(type, partition, t, k, m, q, p)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          ON CONFLICT (actor_type, actor_key, msg_id, seq) DO NOTHING
          RETURNING 1
        ), rec AS (
          INSERT INTO actor_records (actor_type, actor_key, kind, record_id, msg_id, body)
          SELECT x.type, x.k, x.kind, x.id, x.m, x.body::jsonb
          FROM unnest(${sql.array(recs.map((x) => x.b.type))}::text[], ${sql.array(recs.map((x) => x.b.partition))}::int[],
                      ${sql.array(recs.map((x) => x.r.key))}::text[], ${sql.array(recs.map((x) => x.r.kind))}::text[],
                      ${sql.array(recs.map((x) => x.r.id))}::text[], ${sql.array(recs.map((x) => x.r.msgId))}::text[],
                      ${sql.array(bodies)}::text[]) AS x(type, partition, k, kind, id, m, body)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          ON CONFLICT (actor_type, kind, record_id) DO NOTHING
          RETURNING 1
        )
        SELECT (SELECT json_agg(json_build_object('type', type, 'partition', partition)) FROM fence) AS held,
               CASE WHEN (SELECT count(*) FROM snap) <> (SELECT count(*) FROM input)
                    THEN hearth_abort('a snapshot did not advance (written by another owner)') END AS guard,
               (SELECT count(*) FROM ob) AS outboxed,
               (SELECT count(*) FROM rec) AS recorded`.catch((err: unknown) => {
        if (err instanceof Error && err.message.includes('hearth commit aborted')) throw new FencedError(err.message);
        throw err;
      });
      for (const h of result?.held ?? []) held.add(fenceKey(h.type, h.partition));
      return held;
    },
  };
}

/**
 * Serialises what a commit stores. What JSON cannot hold (a BigInt, a cycle) is a data error,
 * like one PostgreSQL refuses (SQLSTATE 22P02): the worker then isolates the entry that made it
 * and dead-letters it, instead of retrying the same batch for ever.
 */
function storable<T>(serialise: () => T): T {
  try {
    return serialise();
  } catch (err) {
    const message = `a state or outbox row cannot be stored as JSON: ${err instanceof Error ? err.message : String(err)}`;
    throw Object.assign(new Error(message), { code: '22P02' });
  }
}
